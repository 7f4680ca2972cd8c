import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { buildAppImage } from '../../src/deploy/app-image.ts';
import { runProgram } from '../jupyter/helpers.ts';

export const REPO = join(import.meta.dirname, '..', '..');
export const API_KEY = 'compose-test-key-0123456789';

/**
 * Compose: Debian's `docker-compose` (v1) when installed, else the engine's `docker compose`
 * plugin (v2); both read the same files. Installed by scripts/setup.sh.
 */
export function composeCommand(): string[] {
  if (existsSync('/usr/bin/docker-compose')) return ['/usr/bin/docker-compose'];
  return ['docker', 'compose'];
}

/** One Compose project of this checkout's compose files, under a name of its own. */
export class ComposeProject {
  constructor(
    readonly name: string,
    private readonly files: string[],
    private readonly env: Record<string, string>,
  ) {}

  async run(args: string[], timeoutMs = 180_000): Promise<string> {
    const [command, ...prefix] = composeCommand();
    const fileArgs = this.files.flatMap((file) => ['-f', join(REPO, file)]);
    const result = await runProgram(
      command!,
      [...prefix, '-p', this.name, '--project-directory', REPO, ...fileArgs, ...args],
      this.env,
      timeoutMs,
    );
    if (result.code !== 0)
      throw new Error(`compose ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  up(): Promise<string> {
    return this.run(['up', '-d']);
  }

  /** Down with the volumes: what the test made, nothing else. */
  down(): Promise<string> {
    return this.run(['down', '-v', '--remove-orphans']);
  }

  logs(service: string): Promise<string> {
    return this.run(['logs', '--no-color', service]);
  }

  /** The app's URL on the host (its port is published on 127.0.0.1, a free one). */
  async url(): Promise<string> {
    const out = (await this.run(['port', 'analyst', '8200'])).trim();
    const port = out.split(':').at(-1);
    if (!port) throw new Error(`no published port for analyst: ${JSON.stringify(out)}`);
    return `http://127.0.0.1:${port}`;
  }

  /** What the engine still holds of this project: containers, networks, volumes. */
  async leftovers(docker: Docker): Promise<string[]> {
    const filters = { label: [`com.docker.compose.project=${this.name}`] };
    const containers = await docker.listContainers({ all: true, filters });
    const networks = await docker.listNetworks({ filters });
    const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
    return [
      ...containers.map((c) => `container ${c.Names?.[0] ?? c.Id}`),
      ...networks.map((n) => `network ${n.Name}`),
      ...volumes.map((v) => `volume ${v.Name}`),
    ];
  }
}

/** Waits for /health/ready to answer 200; the body as a key sees it. */
export async function waitReady(
  url: string,
  project: ComposeProject,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    // Until the app listens, the engine's port proxy may accept and then say nothing: each try
    // has its own (ref'd) timer, which also keeps this process alive while it waits.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 3000);
    try {
      const response = await fetch(`${url}/health/ready`, {
        headers: { authorization: `Bearer ${API_KEY}` },
        signal: controller.signal,
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status === 200) return body;
      last = `${response.status} ${JSON.stringify(body)}`;
    } catch (error) {
      last = (error as Error).message;
    } finally {
      clearTimeout(timer);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(
    `the app was not ready in ${timeoutMs} ms (last: ${last})\n${await project.logs('analyst').catch(String)}`,
  );
}

/** The app image, built once per recipe hash (minutes the first time, then nothing). */
export async function ensureAppImage(docker: Docker, log: (line: string) => void): Promise<string> {
  const started = Date.now();
  const result = await buildAppImage(docker, { log });
  log(`${result.image} ${result.built ? 'built' : 'up to date'} in ${Date.now() - started} ms`);
  return result.image;
}

/**
 * The default bridge's address on the host: what `host.docker.internal:host-gateway` names.
 * An engine that found its bridge (docker0) already up from an earlier start lists no gateway
 * in the network's IPAM; the bridge interface's own IPv4 address is the same thing.
 */
export async function hostGateway(docker: Docker): Promise<string> {
  const bridge = await docker.getNetwork('bridge').inspect();
  const listed = bridge.IPAM?.Config?.[0]?.Gateway as string | undefined;
  if (listed) return listed;
  const name = (bridge.Options?.['com.docker.network.bridge.name'] as string | undefined) ?? 'docker0';
  // Not os.networkInterfaces(): it leaves out a bridge that is down (no container on it yet).
  const shown = spawnSync('ip', ['-4', '-o', 'addr', 'show', 'dev', name], { encoding: 'utf8' }).stdout ?? '';
  const address = /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(shown)?.[1];
  if (!address) throw new Error(`the engine's bridge network has no gateway, and ${name} no IPv4 address`);
  return address;
}

export async function mounts(under: string): Promise<string[]> {
  const result = await runProgram('findmnt', ['-rn', '-o', 'TARGET', '-R', '--target', under]);
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith(under))
    .sort();
}

export { Docker, runProgram };
