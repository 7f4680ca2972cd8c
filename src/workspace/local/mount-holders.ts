import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';

/**
 * Who holds each workspace mount: one empty file per holding process under
 * `<root>/.holders/<workspace id>/`, named after the process (boot id, pid and start time,
 * so a pid reused after a crash or a reboot is not taken for the holder). Replicas on one data
 * directory share mounts: the last live holder unmounts, and a server starting after a crash
 * unmounts what only dead processes held (docs/spec.md#workspace-mounts).
 *
 * Each change of a workspace's holders and its mount (mount + hold, release + unmount) runs
 * under the workspace's lock file, so a replica never unmounts what another is mounting.
 */
export class MountHolders {
  readonly self: string;
  private readonly dir: string;

  constructor(
    root: string,
    private readonly options: { lockWaitMs?: number } = {},
  ) {
    this.dir = join(root, '.holders');
    this.self = holderName(process.pid);
  }

  /** Runs `work` holding the lock of workspace `id` (waits while another live process holds it). */
  async locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const lock = join(this.dir, `${id}.lock`);
    const deadline = Date.now() + (this.options.lockWaitMs ?? 30_000);
    for (;;) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.writeFile(this.self);
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = await readFile(lock, 'utf8').catch(() => '');
      // A lock whose process died (killed between its two steps) is nobody's: take it over.
      // One left empty (killed between making it and naming itself) is after a moment.
      const stale = owner
        ? !holderAlive(owner)
        : Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now()) > 5000;
      if (stale) await unlink(lock).catch(() => {});
      else if (Date.now() > deadline)
        throw new WorkspaceUnavailableError(`workspace ${id} stays locked by another server process`);
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => {});
    }
  }

  /** Records this process as a holder of `id` (call under `locked`). */
  async hold(id: string): Promise<void> {
    await mkdir(join(this.dir, id), { recursive: true, mode: 0o700 });
    const handle = await open(join(this.dir, id, this.self), 'w', 0o600);
    await handle.close();
  }

  /**
   * Removes this process's record and those of dead processes (call under `locked`); says
   * whether a live process other than this one still holds `id`.
   */
  async release(id: string): Promise<boolean> {
    let others = false;
    const dir = join(this.dir, id);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name !== this.self && holderAlive(name)) others = true;
      else await unlink(join(dir, name)).catch(() => {});
    }
    // A workspace nobody holds leaves no record behind.
    if (!others) await rmdir(dir).catch(() => {});
    return others;
  }

  /** Forgets every record of `id` (the workspace is destroyed). */
  async forget(id: string): Promise<void> {
    await rm(join(this.dir, id), { recursive: true, force: true });
  }

  /** Workspace ids with records (held or once held). */
  async recorded(): Promise<string[]> {
    return (await readdir(this.dir).catch(() => [] as string[])).filter((name) =>
      /^ws-[0-9a-f]{24}$/.test(name),
    );
  }
}

let bootIdRead: string | undefined;
/** This boot's id: records of another boot are dead (the mounts went with it). */
function bootId(): string {
  bootIdRead ??= (() => {
    try {
      return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      return 'unknown-boot';
    }
  })();
  return bootIdRead;
}

/** `<boot id>.<pid>.<start time in clock ticks>` of a process of this host. */
function holderName(pid: number): string {
  return `${bootId()}.${pid}.${startTime(pid) ?? 0}`;
}

/** Whether the process a holder name stands for still runs (same boot, same pid, same start). */
export function holderAlive(name: string): boolean {
  const [boot, pid, start] = name.split('.');
  if (boot !== bootId() || !pid || !/^\d+$/.test(pid)) return false;
  const now = startTime(Number(pid));
  return now !== undefined && String(now) === start;
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces). */
function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return undefined;
  }
}
