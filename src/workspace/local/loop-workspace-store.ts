import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';
import type { LoopMountOption } from './host-helper.ts';
import { ImageTemplate } from './image-template.ts';
import { LocalWorkspace, SANDBOX_GID, SANDBOX_UID } from './local-workspace.ts';
import { PendingWorkspace } from './pending-workspace.ts';
import { findProgram, hostHelper, mountPoints, runCommand } from './system-commands.ts';

export interface LoopWorkspaceOptions {
  /** Holds each workspace's image (`<id>.img`) and mount point (`<id>/`). */
  root: string;
  /** Size quota of a new workspace. Default 1 GiB. */
  quotaBytes?: number;
  /** File (inode) quota of a new workspace. Default 200,000. */
  quotaFiles?: number;
  /**
   * Other server processes (replicas on this host) use the same workspaces: `close()` then
   * leaves them mounted, for those processes and for this one's successor. Default false.
   */
  shared?: boolean;
  /**
   * Workspaces made ahead of demand, so a new thread's first cell does not wait for mkfs and
   * mount. Each is marked on disk (`<id>.spare`) until it is handed out: the markers a dead
   * process left are destroyed at start. Ignored by a shared store. Default 0.
   */
  spares?: number;
  /**
   * How long after a spare is handed out the next one is made, while another spare is left:
   * mkfs and mount then do not compete with the first cell of the thread that took it (with
   * none left, at once). Default 1000 ms.
   */
  spareRefillDelayMs?: number;
  /** Called with background failures (making a spare). */
  onError?: (error: unknown) => void;
}

export const DEFAULT_QUOTA_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_QUOTA_FILES = 200_000;
const ID = /^ws-[0-9a-f]{24}$/;
/** ext4 keeps an inode table (256 bytes an inode) and a journal besides the files. */
const INODE_BYTES = 256;
const MIB = 1024 * 1024;
/** Never follow a symlink, never honour setuid or device files: the point of the design. */
const LOOP_MOUNT_OPTIONS: LoopMountOption[] = ['nosuid', 'nodev', 'nosymfollow', 'noatime'];

/**
 * Each workspace is its own small filesystem: a sparse ext4 image, loop-mounted by the
 * server with `nosuid,nodev,nosymfollow`. On such a mount no path resolution by anyone —
 * the host or a cell — follows a symlink, and a cell cannot make a path that leaves the
 * filesystem, so the host can list, read, write and report while a cell changes the
 * directory. The filesystem's size and inode count are the quota, enforced by the kernel
 * while the cell writes (it sees ENOSPC). Deleting a workspace is an unmount and an
 * unlink, whatever it holds. It needs root (mount) and loop devices: `probe` says whether
 * this host has them, and the service refuses to start sandboxes without them.
 */
export class LoopWorkspaceStore implements WorkspaceStore {
  readonly kind = 'loop-ext4';
  private readonly mounted = new Set<string>();
  private readonly mounting = new Map<string, Promise<void>>();
  /** Workspaces whose filesystem is being made. */
  private readonly creating = new Map<string, PendingWorkspace>();
  private readonly quotaBytes: number;
  private readonly quotaFiles: number;
  /** Spare workspaces, mounted and ready to hand out, and how many are being made. */
  private readonly spares: string[] = [];
  private sparesMaking = 0;
  /** Making a spare failed: refill waits for the next create() instead of retrying at once. */
  private sparesFailed = false;
  private spareTimer: NodeJS.Timeout | undefined;
  private readonly sparesTarget: number;
  private closed = false;
  private readonly template: ImageTemplate;

  private constructor(
    private readonly options: LoopWorkspaceOptions,
    private readonly programs: { mkfs: string; debugfs: string | undefined; mount: string },
  ) {
    this.quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;
    this.quotaFiles = options.quotaFiles ?? DEFAULT_QUOTA_FILES;
    this.sparesTarget = options.shared ? 0 : Math.max(0, Math.floor(options.spares ?? 0));
    this.template = new ImageTemplate(options.root, (image) => this.formatTemplate(image));
  }

  /** A store on `root`, or WorkspaceUnavailableError saying why this host cannot have one. */
  static async create(options: LoopWorkspaceOptions): Promise<LoopWorkspaceStore> {
    const why = unsupportedReason();
    if (why) throw new WorkspaceUnavailableError(why);
    await mkdir(options.root, { recursive: true, mode: 0o700 });
    const store = new LoopWorkspaceStore(options, {
      mkfs: findProgram('mkfs.ext4')!,
      debugfs: findProgram('debugfs'),
      mount: findProgram('mount')!,
    });
    await store.rehearse();
    if (!options.shared) {
      await store.destroyLeftoverSpares();
      await ImageTemplate.removeLeftovers(options.root);
    }
    store.refillSpares();
    return store;
  }

  /**
   * A new workspace at once; its filesystem is made in the background (the workspace's
   * methods wait for it), so a burst of new threads does not queue their first answers
   * behind mkfs and mount. A shared store (replicas) makes it before answering.
   */
  async create(): Promise<Workspace> {
    this.refuseWhenClosed();
    const spare = await this.takeSpare();
    if (spare) return spare;
    const id = `ws-${randomHex(12)}`;
    // Replicas on one data directory find a workspace by its id as soon as its thread is
    // stored: it must be mounted by then, or another replica would mount it a second time.
    if (this.options.shared) return this.make(id);
    const making = this.make(id).finally(() => {
      this.creating.delete(id);
      this.mounting.delete(id);
    });
    const workspace = new PendingWorkspace(id, this.mountPath(id), making);
    this.creating.set(id, workspace);
    // What destroy waits for; a failure is each of the workspace's methods' error, not this one's.
    this.mounting.set(
      id,
      making.then(
        () => {},
        () => {},
      ),
    );
    return workspace;
  }

  /** Spares made and mounted, ready to be handed out (a spare being made is not counted). */
  get sparesReady(): number {
    return this.spares.length;
  }

  /** A spare workspace, no longer marked as one, or undefined when none is ready. */
  private async takeSpare(): Promise<Workspace | undefined> {
    const id = this.spares.shift();
    if (this.spares.length > 0) {
      this.spareTimer ??= setTimeout(() => {
        this.spareTimer = undefined;
        this.refillSpares();
      }, this.options.spareRefillDelayMs ?? 1000).unref();
    } else {
      clearTimeout(this.spareTimer);
      this.spareTimer = undefined;
      this.refillSpares();
    }
    if (!id) return undefined;
    // Unmarked before it is handed out: a restart must never destroy a thread's workspace.
    await unlink(this.spareMarker(id)).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    return this.workspace(id);
  }

  private refillSpares(): void {
    while (!this.closed && this.spares.length + this.sparesMaking < this.sparesTarget) {
      this.sparesMaking += 1;
      const id = `ws-${randomHex(12)}`;
      const making = writeFile(this.spareMarker(id), '', { flag: 'wx', mode: 0o600 })
        .then(() => this.make(id))
        .then(
          () => {
            if (this.closed) return this.destroySpare(id);
            this.spares.push(id);
          },
          async (error) => {
            await unlink(this.spareMarker(id)).catch(() => {});
            // No retry loop: the next create() tries again.
            this.sparesFailed = true;
            this.options.onError?.(error);
          },
        )
        .finally(() => {
          this.sparesMaking -= 1;
          this.mounting.delete(id);
          if (!this.sparesFailed) this.refillSpares();
        });
      this.mounting.set(id, making);
    }
    this.sparesFailed = false;
  }

  private async destroySpare(id: string): Promise<void> {
    await this.removeImage(id).catch((error) => this.options.onError?.(error));
    await unlink(this.spareMarker(id)).catch(() => {});
  }

  /** Spares a killed process left behind (their markers say so): nobody else knows them. */
  private async destroyLeftoverSpares(): Promise<void> {
    const names = await readdir(this.options.root);
    for (const name of names) {
      const id = /^(ws-[0-9a-f]{24})\.spare$/.exec(name)?.[1];
      if (id) await this.destroySpare(id);
    }
  }

  /**
   * A new sparse image (it takes no disk until written) with an empty filesystem of the
   * store's quota; the journal grows with the quota (4–32 MiB).
   */
  private async formatImage(image: string): Promise<void> {
    const journalMb = Math.max(4, Math.min(32, Math.round(this.quotaBytes / 32 / MIB)));
    const handle = await open(image, 'wx', 0o600);
    await handle.truncate(this.quotaBytes + this.quotaFiles * INODE_BYTES + (journalMb + 2) * MIB);
    await handle.close();
    await this.mkfs(image, this.quotaFiles, journalMb);
  }

  /**
   * The template: a new image without lost+found (only fsck needs it, and fsck makes it), so
   * no workspace copied from it has one to remove once mounted.
   */
  private async formatTemplate(image: string): Promise<void> {
    await this.formatImage(image);
    // Without debugfs (part of e2fsprogs, as mkfs.ext4) there is no template: each image is formatted.
    if (!this.programs.debugfs) throw new WorkspaceUnavailableError('debugfs is missing');
    const result = await runCommand(this.programs.debugfs, ['-w', '-R', 'rmdir lost+found', image]);
    // debugfs reports a failed command on stderr, with exit code 0.
    if (result.code !== 0 || /rmdir:|lost\+found:/.test(result.stderr))
      throw new WorkspaceUnavailableError(
        `could not prepare the workspace template: ${this.scrub(result.stderr)}`,
      );
  }

  private async make(id: string): Promise<Workspace> {
    const image = this.imagePath(id);
    try {
      const copied = await this.template.copyTo(image);
      if (!copied) await this.formatImage(image);
      await this.mountImage(id, true);
      if (!copied) await this.removeLostFound(id);
    } catch (error) {
      await this.removeImage(id).catch(() => {});
      throw error;
    }
    return this.workspace(id);
  }

  async open(id: string): Promise<Workspace> {
    if (!ID.test(id)) throw new NotFoundError(`no workspace ${JSON.stringify(id)}`);
    const pending = this.creating.get(id);
    if (pending) return pending;
    if (!this.mounted.has(id)) {
      let pending = this.mounting.get(id);
      if (!pending) {
        pending = this.ensureMounted(id).finally(() => this.mounting.delete(id));
        this.mounting.set(id, pending);
      }
      await pending;
    }
    return this.workspace(id);
  }

  async destroy(id: string): Promise<void> {
    if (!ID.test(id)) return;
    await this.mounting.get(id)?.catch(() => {});
    await this.removeImage(id);
  }

  private async removeImage(id: string): Promise<void> {
    await this.unmount(id);
    await unlink(this.imagePath(id)).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    await rmdir(this.mountPath(id)).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.spareTimer);
    await Promise.allSettled([...this.mounting.values()]);
    for (const id of this.spares.splice(0)) await this.destroySpare(id);
    await this.template.remove();
    if (this.options.shared) {
      this.mounted.clear();
      return;
    }
    await Promise.all([...this.mounted].map((id) => this.unmount(id).catch(() => {})));
  }

  /**
   * Work that outlives the server's wait for it (a report of a cancelled run, written
   * after close) must not mount again what close unmounted: nobody would unmount it.
   */
  private refuseWhenClosed(): void {
    if (this.closed)
      throw new WorkspaceUnavailableError('the workspace store is closed: the server is stopping');
  }

  /** How many workspaces this process has mounted (for status pages). */
  get mountedCount(): number {
    return this.mounted.size;
  }

  /** System messages name the image and mount paths: a tenant may read these errors. */
  private scrub(text: string): string {
    return text.replaceAll(this.options.root, '<workspaces>');
  }

  private workspace(id: string): Workspace {
    return new LocalWorkspace(id, this.mountPath(id), 'filesystem');
  }

  private spareMarker(id: string): string {
    return join(this.options.root, `${id}.spare`);
  }

  private imagePath(id: string): string {
    return join(this.options.root, `${id}.img`);
  }

  private mountPath(id: string): string {
    return join(this.options.root, id);
  }

  private async ensureMounted(id: string): Promise<void> {
    this.refuseWhenClosed();
    if ((await mountPoints()).has(this.mountPath(id))) {
      this.mounted.add(id); // mounted by an earlier server process; still good
      return;
    }
    if (!existsSync(this.imagePath(id))) throw new NotFoundError(`workspace ${id} no longer exists`);
    try {
      await this.mountImage(id, false);
      await this.removeLostFound(id);
    } catch (error) {
      // Another process (a replica) mounted it at the same moment: mount refuses a second one.
      if (!(await mountPoints()).has(this.mountPath(id))) throw error;
      this.mounted.add(id);
    }
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
        `could not make a workspace filesystem: ${this.scrub(result.stderr)}`,
      );
  }

  /** `fresh`: an image nobody else knows yet (see mountLoop). */
  private async mountImage(id: string, fresh: boolean): Promise<void> {
    const error = await this.mountLoop(this.imagePath(id), this.mountPath(id), fresh);
    if (error) throw new WorkspaceUnavailableError(`could not mount workspace ${id}: ${this.scrub(error)}`);
    this.mounted.add(id);
  }

  /**
   * Mounts `image` on `point` (made if missing): the system's error, or undefined. A fresh
   * image (a new one, that nobody else can mount yet) through the host helper first: no
   * program, no scan of every loop device. Where that fails (no helper, an old kernel, a
   * container without the device node), and for the others, with the mount program, whose
   * error counts: it refuses a second mount of an image a replica mounted at the same moment.
   */
  private async mountLoop(image: string, point: string, fresh: boolean): Promise<string | undefined> {
    if (fresh && !(await hostHelper().mountLoop(image, point, LOOP_MOUNT_OPTIONS)).error) return undefined;
    await mkdir(point, { mode: 0o755 }).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
    const options = ['loop', ...LOOP_MOUNT_OPTIONS].join(',');
    const result = await runCommand(this.programs.mount, ['-t', 'ext4', '-o', options, image, point]);
    return result.code === 0 ? undefined : result.stderr || `mount exited with ${result.code}`;
  }

  /** ext4's lost+found is only for fsck (which recreates it); cells need not see it. */
  private async removeLostFound(id: string): Promise<void> {
    await rmdir(join(this.mountPath(id), 'lost+found')).catch(() => {});
  }

  private async unmount(id: string): Promise<void> {
    const point = this.mountPath(id);
    this.mounted.delete(id);
    if (!(await mountPoints()).has(point)) return;
    const helper = hostHelper();
    if (!(await helper.unmount(point)).error) return;
    // Still in use (a container that is going away): detach now, the kernel frees it after.
    const lazy = await helper.unmount(point, true);
    if (lazy.error)
      throw new WorkspaceUnavailableError(`could not unmount workspace ${id}: ${this.scrub(lazy.error)}`);
  }

  /** One small workspace made, mounted and removed at start, so a host that lacks a part says so now. */
  private async rehearse(): Promise<void> {
    const id = `ws-${randomHex(12)}`;
    const image = this.imagePath(id);
    try {
      const handle = await open(image, 'wx', 0o600);
      await handle.truncate(16 * 1024 * 1024);
      await handle.close();
      await this.mkfs(image, 1024);
      const point = this.mountPath(id);
      const error = await this.mountLoop(image, point, true);
      if (error) {
        const hint =
          /nosymfollow/.test(error) || /Invalid argument|bad option/i.test(error)
            ? ' (the kernel must support the nosymfollow mount option: Linux 5.10 or newer)'
            : '';
        throw new WorkspaceUnavailableError(
          `workspaces cannot be mounted on this host${hint}: ${this.scrub(error)}`,
        );
      }
      if (!(await stat(point)).isDirectory())
        throw new WorkspaceUnavailableError('a workspace mount did not appear');
      await hostHelper().unmount(point);
    } finally {
      await rm(image, { force: true });
      await rmdir(this.mountPath(id)).catch(() => {});
    }
  }
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
