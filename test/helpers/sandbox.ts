import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { resolveDockerEndpoint } from '../../src/sandbox/docker/endpoint.ts';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import {
  createDockerSandbox,
  type DockerSandboxManager,
  type DockerSandboxOptions,
} from '../../src/sandbox/docker/manager.ts';
import { LoopWorkspaceStore } from '../../src/workspace/index.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';

/** The image sandbox tests run on (built by the test command with `analyst sandbox build`). */
export const TEST_IMAGE = process.env.ANALYST_TEST_IMAGE ?? 'analyst-sandbox:latest';

export const docker = new Docker({ socketPath: resolveDockerEndpoint().socketPath });

export function testSandbox(options: DockerSandboxOptions = {}): Promise<DockerSandboxManager> {
  return createDockerSandbox({ image: TEST_IMAGE, reapIntervalMs: 0, ...options });
}

/** Names of the containers a manager instance made that still exist. */
export async function containersOfInstance(instanceId: string): Promise<string[]> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.instance}=${instanceId}`] },
  });
  return list.map((c) => (c.Names?.[0] ?? c.Id).replace(/^\//, ''));
}

export { eventually } from './eventually.ts';

let stores: Promise<LoopWorkspaceStore> | undefined;

/** The loop-mounted workspace store the tests of this process share (under a temp directory). */
export function testWorkspaces(): Promise<LoopWorkspaceStore> {
  stores ??= mkdtemp(join(tmpdir(), 'analyst-test-ws-')).then((root) => {
    // Workspaces that tests leave (a pool's, a failed test's) must not stay mounted after
    // the process: unmounted synchronously when it exits, with the directory.
    process.once('exit', () => releaseMountsSync(root));
    return LoopWorkspaceStore.create({ root });
  });
  return stores;
}

/**
 * A fresh workspace (a loop-mounted filesystem, as the server makes them), removed by
 * `cleanup`. `dir` is its mount point, for tests that put files in place themselves.
 */
export async function tempWorkspace(): Promise<{ dir: string; ws: Workspace; cleanup: () => Promise<void> }> {
  const store = await testWorkspaces();
  const ws = await store.create();
  await ws.ready();
  return { dir: ws.mount().path, ws, cleanup: () => store.destroy(ws.id) };
}

/** Lazily unmounts everything mounted under `root` and removes it; never throws. */
function releaseMountsSync(root: string): void {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(`${root}/`));
  for (const point of points) {
    try {
      execFileSync('umount', ['-l', point], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
}
