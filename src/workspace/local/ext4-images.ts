import { existsSync } from 'node:fs';
import { mkdir, open, rm, rmdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';
import type { LoopMountOption } from './host-helper.ts';
import { SANDBOX_GID, SANDBOX_UID } from './local-workspace.ts';
import { backgroundHelper, findProgram, hostHelper, runCommand } from './system-commands.ts';

/** ext4 keeps an inode table (256 bytes an inode) and a journal besides the files. */
const INODE_BYTES = 256;
const MIB = 1024 * 1024;
/** Never follow a symlink, never honour setuid or device files: the point of the design. */
const LOOP_MOUNT_OPTIONS: LoopMountOption[] = ['nosuid', 'nodev', 'nosymfollow', 'noatime'];

export interface Ext4ImageOptions {
  /** Size of a new image's filesystem. */
  quotaBytes: number;
  /** Inodes of a new image's filesystem. */
  quotaFiles: number;
  /** Takes paths a tenant must not see out of the system's messages. */
  scrub: (text: string) => string;
}

/** Why this host cannot have loop-mounted workspaces, or undefined when it can. */
export function unsupportedReason(): string | undefined {
  if (process.platform !== 'linux') return `loop-mounted workspaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) {
    return 'loop-mounted workspaces need the server to run as root (it mounts one filesystem per workspace)';
  }
  for (const program of ['mkfs.ext4', 'mount', 'umount']) {
    if (!findProgram(program)) return `${program} is missing (install e2fsprogs and mount)`;
  }
  if (!existsSync('/dev/loop-control')) return 'no loop devices on this host (/dev/loop-control is missing)';
  return undefined;
}

/**
 * The system's part of a loop workspace: a sparse image with an ext4 filesystem of the
 * quota's size and inode count, mounted `nosuid,nodev,nosymfollow` through a loop device of
 * its own, and unmounted. Errors are WorkspaceUnavailableError with the system's message.
 */
export class Ext4Images {
  private readonly programs = {
    mkfs: findProgram('mkfs.ext4') ?? 'mkfs.ext4',
    debugfs: findProgram('debugfs'),
    mount: findProgram('mount') ?? 'mount',
  };

  constructor(private readonly options: Ext4ImageOptions) {}

  /**
   * A new sparse image (it takes no disk until written) with an empty filesystem of the
   * quota; the journal grows with the quota (4–32 MiB).
   */
  async format(image: string): Promise<void> {
    const { quotaBytes, quotaFiles } = this.options;
    const journalMb = Math.max(4, Math.min(32, Math.round(quotaBytes / 32 / MIB)));
    const handle = await open(image, 'wx', 0o600);
    await handle.truncate(quotaBytes + quotaFiles * INODE_BYTES + (journalMb + 2) * MIB);
    await handle.close();
    await this.mkfs(image, quotaFiles, journalMb);
  }

  /**
   * A new image for a template: without lost+found (only fsck needs it, and fsck makes it),
   * so no workspace copied from it has one to remove once mounted.
   */
  async formatTemplate(image: string): Promise<void> {
    await this.format(image);
    // Without debugfs (part of e2fsprogs, as mkfs.ext4) there is no template: each image is formatted.
    if (!this.programs.debugfs) throw new WorkspaceUnavailableError('debugfs is missing');
    const result = await runCommand(this.programs.debugfs, ['-w', '-R', 'rmdir lost+found', image]);
    // debugfs reports a failed command on stderr, with exit code 0.
    if (result.code !== 0 || /rmdir:|lost\+found:/.test(result.stderr))
      throw new WorkspaceUnavailableError(
        `could not prepare the workspace template: ${this.options.scrub(result.stderr)}`,
      );
  }

  /**
   * Mounts `image` on `point` (made if missing). A fresh image (a new one, that nobody else
   * can mount yet) through the host helper first: no program, no scan of every loop device.
   * Where that fails (no helper, an old kernel, a container without the device node), and
   * for the others, with the mount program, whose error counts: it refuses a second mount of
   * an image a replica mounted at the same moment.
   */
  async mount(image: string, point: string, fresh: boolean): Promise<void> {
    const error = await this.mountError(image, point, fresh);
    if (error)
      throw new WorkspaceUnavailableError(
        `could not mount workspace ${basename(point)}: ${this.options.scrub(error)}`,
      );
  }

  /** Unmounts `point` (its mount point is the workspace's id); still in use (a container that is going away), detaches it now, freed after. */
  async unmount(point: string): Promise<void> {
    const helper = hostHelper();
    if (!(await helper.unmount(point)).error) return;
    const lazy = await helper.unmount(point, true);
    if (lazy.error)
      throw new WorkspaceUnavailableError(
        `could not unmount workspace ${basename(point)}: ${this.options.scrub(lazy.error)}`,
      );
  }

  /** Unmounts `point` unless it is busy (an open file, a cell's process): then false, and it stays. */
  async tryUnmount(point: string): Promise<boolean> {
    const { error } = await hostHelper().unmount(point);
    if (!error) return true;
    if (/busy/i.test(error)) return false;
    throw new WorkspaceUnavailableError(
      `could not unmount workspace ${basename(point)}: ${this.options.scrub(error)}`,
    );
  }

  /** ext4's lost+found is only for fsck (which recreates it); cells need not see it. */
  async removeLostFound(point: string): Promise<void> {
    await rmdir(join(point, 'lost+found')).catch(() => {});
  }

  /** One small image made, mounted and removed in `image`/`point`, so a host that lacks a part says so now. */
  async rehearse(image: string, point: string): Promise<void> {
    try {
      const handle = await open(image, 'wx', 0o600);
      await handle.truncate(16 * MIB);
      await handle.close();
      await this.mkfs(image, 1024);
      const error = await this.mountError(image, point, true);
      if (error) {
        const hint =
          /nosymfollow/.test(error) || /Invalid argument|bad option/i.test(error)
            ? ' (the kernel must support the nosymfollow mount option: Linux 5.10 or newer)'
            : '';
        throw new WorkspaceUnavailableError(
          `workspaces cannot be mounted on this host${hint}: ${this.options.scrub(error)}`,
        );
      }
      if (!(await stat(point)).isDirectory())
        throw new WorkspaceUnavailableError('a workspace mount did not appear');
      await hostHelper().unmount(point);
    } finally {
      await rm(image, { force: true });
      await rmdir(point).catch(() => {});
    }
  }

  /** The system's error of a mount, or undefined. */
  private async mountError(image: string, point: string, fresh: boolean): Promise<string | undefined> {
    if (fresh && !(await backgroundHelper().mountLoop(image, point, LOOP_MOUNT_OPTIONS)).error)
      return undefined;
    await mkdir(point, { mode: 0o755 }).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
    const options = ['loop', ...LOOP_MOUNT_OPTIONS].join(',');
    const result = await runCommand(this.programs.mount, ['-t', 'ext4', '-o', options, image, point]);
    return result.code === 0 ? undefined : result.stderr || `mount exited with ${result.code}`;
  }

  private async mkfs(image: string, inodes: number, journalMb = 4): Promise<void> {
    const result = await runCommand(this.programs.mkfs, [
      '-q',
      '-F',
      '-m',
      '0',
      '-N',
      String(inodes),
      '-J',
      `size=${journalMb}`,
      '-E',
      `root_owner=${SANDBOX_UID}:${SANDBOX_GID},lazy_itable_init=0,lazy_journal_init=1`,
      image,
    ]);
    if (result.code !== 0)
      throw new WorkspaceUnavailableError(
        `could not make a workspace filesystem: ${this.options.scrub(result.stderr)}`,
      );
  }
}
