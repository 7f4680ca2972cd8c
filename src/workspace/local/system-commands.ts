import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type CommandResult, HostHelper } from './host-helper.ts';

/**
 * The few system programs the loop store runs (mkfs.ext4, mount, umount), found once on
 * the usual sbin/bin paths, and run without a shell. Each runs in its own process, so a
 * slow unmount of a workspace with a million files never holds up the event loop.
 */

const SEARCH = ['/usr/sbin', '/sbin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/local/bin'];

export function findProgram(name: string): string | undefined {
  for (const dir of SEARCH) {
    const path = `${dir}/${name}`;
    if (existsSync(path)) return path;
  }
  return undefined;
}

export type { CommandResult };

const ENV = { PATH: SEARCH.join(':'), LANG: 'C' };
let shared: HostHelper | undefined;
let background: HostHelper | undefined;

const helperPrograms = () => ({
  mount: findProgram('mount') ?? 'mount',
  umount: findProgram('umount') ?? 'umount',
  python: findProgram('python3'),
  spawnHere,
});

/** The one helper of this process: programs and binds without forking the server. */
export function hostHelper(): HostHelper {
  shared ??= new HostHelper(helperPrograms());
  return shared;
}

/**
 * A second helper at the lowest CPU priority, for making new workspace filesystems (image
 * copies, their loop mounts): a burst of new threads kept it busy while their chats waited
 * for a core (docs/performance.md#host-helper), and none of them needs its filesystem before its first
 * cell. Binds and unmounts, on a cell's path, stay with `hostHelper()`.
 */
export function backgroundHelper(): HostHelper {
  background ??= new HostHelper({ ...helperPrograms(), niceness: 19 });
  return background;
}

export function runCommand(program: string, args: string[], timeoutMs = 120_000): Promise<CommandResult> {
  return hostHelper().run(program, args, ENV, timeoutMs);
}

/** Starts `program` from this process (what the host helper falls back to). */
export function spawnHere(program: string, args: string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { timeout: timeoutMs, env: ENV, maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stderr: String(stderr || (error ? error.message : '')).trim() });
      },
    );
  });
}

/** Mount points of this process's mount namespace (decoded from /proc/self/mountinfo). */
export async function mountPoints(): Promise<Set<string>> {
  const text = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const points = new Set<string>();
  // Called for each workspace mounted or unmounted, with hundreds of mounts in the table:
  // a mount point is decoded only when it has an escape.
  for (const line of text.split('\n')) {
    const field = line.split(' ', 5)[4];
    if (!field) continue;
    points.add(
      field.includes('\\')
        ? field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
        : field,
    );
  }
  return points;
}
