import { mkdir, readdir, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { HostHelper } from '../../workspace/local/host-helper.ts';
import { findProgram, hostHelper, mountPoints, runCommand } from '../../workspace/local/system-commands.ts';

/**
 * Workspace slots, so that a warm container can serve any thread and an idle thread can give
 * its container back. A session container mounts its slot directory at /workspace with
 * `rslave` propagation; the host attaches a thread's workspace by bind-mounting the
 * workspace's mount point onto the slot (the bind keeps `nosymfollow,nosuid,nodev`), and the
 * mount appears inside the running container at once. Detaching is an unmount. Only the host
 * (root) mounts; a cell cannot, having no capabilities.
 *
 * The slots' root is made a shared mount once (`mount --bind root root; mount --make-rshared`),
 * which Docker requires of the source of an `rslave` bind.
 */
export class WorkspaceSlots {
  private constructor(
    private readonly root: string,
    /** Binds and unmounts: a system call each, not a program started from this process. */
    private readonly calls: HostHelper,
  ) {}

  /** Slots under `root`, or undefined where the host cannot mount (not root, no mount program). */
  static async open(root: string): Promise<WorkspaceSlots | undefined> {
    const mount = findProgram('mount');
    const umount = findProgram('umount');
    if (process.platform !== 'linux' || process.getuid?.() !== 0 || !mount || !umount) return undefined;
    await mkdir(root, { recursive: true, mode: 0o711 });
    await removeStaleSlots(dirname(root), basename(root), umount);
    if (!(await mountPoints()).has(root)) {
      const bound = await runCommand(mount, ['--bind', root, root]);
      if (bound.code !== 0) return undefined;
    }
    const shared = await runCommand(mount, ['--make-rshared', root]);
    if (shared.code !== 0) return undefined;
    const calls = hostHelper();
    calls.start();
    return new WorkspaceSlots(root, calls);
  }

  /**
   * Unmounts and removes the slots killed processes left under `parent` (their binds hold
   * workspaces' filesystems and loop devices), except `self`'s. Where the host cannot mount,
   * nothing.
   */
  static async removeLeftovers(parent: string, self: string): Promise<void> {
    const umount = findProgram('umount');
    if (process.platform !== 'linux' || process.getuid?.() !== 0 || !umount) return;
    await removeStaleSlots(parent, self, umount);
  }

  /** A new, empty slot directory for the container `name`. */
  async create(name: string): Promise<string> {
    const slot = join(this.root, name);
    await mkdir(slot, { mode: 0o755 });
    return slot;
  }

  /** Puts the workspace mounted at `source` into the slot (and so at the container's /workspace). */
  async attach(slot: string, source: string): Promise<void> {
    const { error } = await this.calls.bind(source, slot);
    if (error) throw new Error(`could not attach a workspace to a sandbox: ${error}`);
  }

  /** Unmounts the slots' root (after every slot is removed) and removes it. Never throws. */
  async close(): Promise<void> {
    if ((await mountPoints()).has(this.root)) await this.calls.unmount(this.root, true);
    await rmdir(this.root).catch(() => {});
  }

  /** Takes the workspace out of the slot (the container sees an empty /workspace). Never throws. */
  async detach(slot: string): Promise<void> {
    for (let attempt = 0; attempt < 8 && (await mountPoints()).has(slot); attempt++) {
      if ((await this.calls.unmount(slot)).error) await this.calls.unmount(slot, true);
    }
  }

  /** Takes the workspace out of the slot and removes the slot directory. Never throws. */
  async remove(slot: string): Promise<void> {
    await this.detach(slot);
    await rmdir(slot).catch(() => {});
  }
}

/**
 * Unmounts what a killed process left under `parent` (slot roots are named `PID-…` after
 * their process): its workspaces stay attached to its slots until then. Directories are
 * removed with rmdir only, so a workspace still mounted there is never deleted.
 */
async function removeStaleSlots(parent: string, self: string, umount: string): Promise<void> {
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const pid = Number.parseInt(name, 10);
    if (name === self || !Number.isInteger(pid) || processAlive(pid)) continue;
    const root = join(parent, name);
    const inside = [...(await mountPoints())]
      .filter((point) => point === root || point.startsWith(`${root}/`))
      .sort((a, b) => b.length - a.length);
    for (const point of inside) await runCommand(umount, ['-l', point]);
    for (const slot of await readdir(root).catch(() => [] as string[]))
      await rmdir(join(root, slot)).catch(() => {});
    await rmdir(root).catch(() => {});
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
