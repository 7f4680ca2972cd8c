import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '../ids/random-hex.ts';
import type { ModelRegistry } from '../llm/registry.ts';
import { ownerOf } from '../server/auth.ts';
import { loadServerConfig } from '../server/config.ts';
import { createService, type Service } from '../server/service.ts';
import { findProgram, mountPoints, runCommand } from '../workspace/local/system-commands.ts';

const PREFIX = 'analyst-jupyter-';
const OWNER_FILE = 'owner.pid';

export interface OwnServer {
  url: string;
  apiKey: string;
  threadId: string;
  close(): Promise<void>;
}

/**
 * The private Analyst server of a Jupyter kernel installed without one: on 127.0.0.1, a
 * random port and a random key, its data in a temporary directory that goes with it. It
 * makes the kernel's thread and warms its sandbox, so the first cell does not wait for a
 * container to start.
 */
export async function startOwnServer(
  env: Record<string, string | undefined>,
  registry: ModelRegistry,
): Promise<OwnServer> {
  await removeAbandoned();
  const dataDir = await mkdtemp(join(tmpdir(), PREFIX));
  await writeFile(join(dataDir, OWNER_FILE), String(process.pid));
  const apiKey = `jupyter-${randomHex(24)}`;
  let service: Service | undefined;
  try {
    const config = loadServerConfig(
      { host: '127.0.0.1', port: 0, dataDir },
      {
        ...env,
        ANALYST_API_KEYS: apiKey,
        ANALYST_API_KEYS_FILE: undefined,
        ANALYST_POOL_SESSION: '0',
        ANALYST_POOL_EPHEMERAL: '0',
      },
    );
    service = await createService(config, { registry, logger: false });
    const url = await service.listen();
    const owner = ownerOf(`Bearer ${apiKey}`, config.keys);
    const thread = await service.deps.threads.create(owner, {
      title: 'Jupyter kernel',
      metadata: { created_by: 'jupyter' },
    });
    const deps = service.deps;
    void deps.threads
      .workspace(thread)
      .then((workspace) =>
        deps.sandbox.runCell({ id: thread.id, workspace, stateful: true }, { code: 'pass' }),
      )
      .catch(() => {});
    const running = service;
    return {
      url,
      apiKey,
      threadId: thread.id,
      async close() {
        await running.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The data of private servers whose process is gone (killed with their kernel before they
 * could clean up): their workspace filesystems are unmounted and their folders removed.
 */
async function removeAbandoned(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(PREFIX))) {
    const dir = join(tmpdir(), name);
    const pid = Number(await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => ''));
    if (!Number.isInteger(pid) || pid <= 0 || isAlive(pid)) continue;
    const inside = [...(await mountPoints())].filter((point) => point.startsWith(`${dir}/`));
    for (const point of inside) await runCommand(findProgram('umount') ?? 'umount', ['-l', point]);
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
