import { existsSync } from 'node:fs';
import { mkdir, readdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';
import { Ext4Images, unsupportedReason } from './ext4-images.ts';
import { IdleMounts } from './idle-mounts.ts';
import { ImageTemplate } from './image-template.ts';
import { LeasedWorkspace } from './leased-workspace.ts';
import { LocalWorkspace } from './local-workspace.ts';
import { MountHolders } from './mount-holders.ts';
import { PendingWorkspace } from './pending-workspace.ts';
import { mountDevices, mountPoints } from './system-commands.ts';

export interface LoopWorkspaceOptions {
  /** Holds each workspace's image (`<id>.img`) and mount point (`<id>/`). */
  root: string;
  /** Size quota of a new workspace. Default 8 GiB (DEFAULT_QUOTA_BYTES). */
  quotaBytes?: number;
  /** File (inode) quota of a new workspace. Default 200,000. */
  quotaFiles?: number;
  /**
   * Other server processes (replicas on this host) use the same workspaces: each mount has a
   * holder record per process, and `close()` unmounts only what no other live process holds.
   * Default false.
   */
  shared?: boolean;
  /**
   * A workspace nobody used for this long is unmounted (its loop device freed) and mounted
   * again on its next use (ANALYST_WORKSPACE_IDLE_UNMOUNT_MS). 0: never. Default 0.
   */
  idleUnmountMs?: number;
  /** The clock idle times are measured with. Default Date.now. */
  now?: () => number;
  /**
   * Workspaces made ahead of demand, so a new thread's first cell does not wait for mkfs and
   * mount. Each is marked on disk (`<id>.spare`) until it is handed out: the markers a dead
   * process left are destroyed at start. Ignored by a shared store. Default 0.
   */
  spares?: number;
  /**
   * While another spare is left, the next one is made when this resolves (the server's
   * QuietTime: no run going), so the image copy and mount do not compete with the cells of
   * the thread that took one (issue 32). With none left, at once.
   */
  quiet?: { settled(): Promise<void> };
  /** Without `quiet`: how long after a spare is handed out the next one is made. Default 1000 ms. */
  spareRefillDelayMs?: number;
  /** Called with background failures (making a spare). */
  onError?: (error: unknown) => void;
}

/**
 * 8 GiB: room for one upload of the largest default size (4 GiB, ANALYST_MAX_UPLOAD_BYTES)
 * and as much again for DuckDB's spill files. The image is sparse: it costs the disk what
 * is written to it, and an empty one about 4 MB.
 */
export const DEFAULT_QUOTA_BYTES = 8 * 1024 ** 3;
export const DEFAULT_QUOTA_FILES = 200_000;
const ID = /^ws-[0-9a-f]{24}$/;

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
  /** Workspaces this process has mounted (or found mounted) and holds. */
  private readonly mounted = new Set<string>();
  private readonly mounting = new Map<string, Promise<void>>();
  /** Idle workspaces being unmounted: a use waits for it, then mounts again. */
  private readonly unmounting = new Map<string, Promise<void>>();
  private readonly holders: MountHolders;
  private readonly idle: IdleMounts;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Workspaces whose filesystem is being made. */
  private readonly creating = new Map<string, PendingWorkspace>();
  /** Spare workspaces, mounted and ready to hand out, and how many are being made. */
  private readonly spares: string[] = [];
  private sparesMaking = 0;
  /** Making a spare failed: refill waits for the next create() instead of retrying at once. */
  private sparesFailed = false;
  /** A refill waiting for quiet (or its delay). */
  private spareWait: Promise<void> | undefined;
  private readonly sparesTarget: number;
  private closed = false;
  private readonly template: ImageTemplate;
  private readonly images: Ext4Images;

  private constructor(private readonly options: LoopWorkspaceOptions) {
    this.sparesTarget = options.shared ? 0 : Math.max(0, Math.floor(options.spares ?? 0));
    this.images = new Ext4Images({
      quotaBytes: options.quotaBytes ?? DEFAULT_QUOTA_BYTES,
      quotaFiles: options.quotaFiles ?? DEFAULT_QUOTA_FILES,
      // System messages name the image and mount paths: a tenant may read these errors.
      scrub: (text) => text.replaceAll(options.root, '<workspaces>'),
    });
    this.template = new ImageTemplate(options.root, (image) => this.images.formatTemplate(image));
    this.holders = new MountHolders(options.root);
    this.idle = new IdleMounts(options.now ?? Date.now);
  }

  /** A store on `root`, or WorkspaceUnavailableError saying why this host cannot have one. */
  static async create(options: LoopWorkspaceOptions): Promise<LoopWorkspaceStore> {
    const why = unsupportedReason();
    if (why) throw new WorkspaceUnavailableError(why);
    await mkdir(options.root, { recursive: true, mode: 0o700 });
    const store = new LoopWorkspaceStore(options);
    const rehearsal = `ws-${randomHex(12)}`;
    await store.images.rehearse(store.imagePath(rehearsal), store.mountPath(rehearsal));
    await store.releaseDeadHolders();
    if (!options.shared) {
      await store.destroyLeftoverSpares();
      await ImageTemplate.removeLeftovers(options.root);
    }
    store.refillSpares();
    const idleMs = options.idleUnmountMs ?? 0;
    if (idleMs > 0) {
      store.idleTimer = setInterval(
        () => void store.unmountIdle(idleMs).catch((error) => options.onError?.(error)),
        Math.min(30_000, Math.max(100, Math.floor(idleMs / 4))),
      );
      store.idleTimer.unref();
    }
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

  /** Spares being made in the background now (0 once the store has as many as it keeps). */
  get sparesInTheMaking(): number {
    return this.sparesMaking;
  }

  /** A spare workspace, no longer marked as one, or undefined when none is ready. */
  private async takeSpare(): Promise<Workspace | undefined> {
    const id = this.spares.shift();
    if (this.spares.length === 0) this.refillSpares();
    else
      this.spareWait ??= (
        this.options.quiet?.settled() ??
        new Promise<void>((resolve) => setTimeout(resolve, this.options.spareRefillDelayMs ?? 1000).unref())
      ).then(() => {
        this.spareWait = undefined;
        this.refillSpares();
      });
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

  private async make(id: string): Promise<Workspace> {
    const image = this.imagePath(id);
    try {
      const copied = await this.template.copyTo(image);
      if (!copied) await this.images.format(image);
      await this.mountImage(id, true);
      if (!copied) await this.images.removeLostFound(this.mountPath(id));
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
    await this.unmounting.get(id);
    await this.removeImage(id);
  }

  private async removeImage(id: string): Promise<void> {
    await this.unmount(id);
    await unlink(this.imagePath(id)).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    await rmdir(this.mountPath(id)).catch(() => {});
    await this.holders.forget(id);
    this.idle.forget(id);
  }

  /**
   * Unmounts what this process holds and no other live process does (replicas keep theirs).
   * Every workspace is tried, whichever fails: the first failure is thrown after the others.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    await Promise.allSettled([...this.mounting.values(), ...this.unmounting.values()]);
    const failures: unknown[] = [];
    for (const id of this.spares.splice(0)) await this.destroySpare(id);
    await this.template.remove().catch((error) => failures.push(error));
    // The mount table is read once: once per workspace made stopping quadratic in their number.
    const points = await mountPoints();
    const held = [...this.mounted];
    this.mounted.clear();
    await Promise.all(
      held.map((id) =>
        this.releaseMount(id, points.has(this.mountPath(id)), true).catch((error) => failures.push(error)),
      ),
    );
    if (failures.length) throw failures[0];
  }

  /**
   * Drops this process's hold of `id` and unmounts it when no other live process holds it.
   * `lazy`: a busy filesystem is detached now and freed when the last user lets go (a stop);
   * otherwise a busy one stays mounted and held (an idle unmount), and this returns false.
   */
  private releaseMount(id: string, mounted: boolean, lazy: boolean): Promise<boolean> {
    return this.holders.locked(id, async () => {
      if ((await this.holders.release(id)) || !mounted) return true;
      if (lazy) {
        await this.images.unmount(this.mountPath(id));
        return true;
      }
      if (await this.images.tryUnmount(this.mountPath(id))) return true;
      await this.holders.hold(id);
      return false;
    });
  }

  /**
   * Mounts of workspaces whose holders all died (a killed server, a replica that crashed) are
   * released at start: taken over on their next use, never left for the host to keep.
   */
  private async releaseDeadHolders(): Promise<void> {
    const points = await mountPoints();
    const ids = new Set(await this.holders.recorded());
    for (const point of points) {
      const id = point.startsWith(`${this.options.root}/`) ? point.slice(this.options.root.length + 1) : '';
      if (ID.test(id)) ids.add(id);
    }
    for (const id of ids) {
      await this.releaseMount(id, points.has(this.mountPath(id)), true);
    }
  }

  /** Unmounts the workspaces nobody used for `idleMs` (and that no sandbox has attached). */
  async unmountIdle(idleMs: number): Promise<number> {
    const candidates = this.idle
      .idle(this.mounted, idleMs)
      .filter((id) => !this.spares.includes(id) && !this.mounting.has(id) && !this.unmounting.has(id));
    if (candidates.length === 0 || this.closed) return 0;
    const devices = await mountDevices();
    const attached = new Map<string, number>();
    for (const device of devices.values()) attached.set(device, (attached.get(device) ?? 0) + 1);
    let count = 0;
    const work: Promise<void>[] = [];
    for (const id of candidates) {
      const device = devices.get(this.mountPath(id));
      // Checked again after the await: a use that began meanwhile keeps it.
      if (this.closed || this.idle.busy(id) || this.mounting.has(id) || !this.mounted.has(id)) continue;
      // Bound into a sandbox's slot (one filesystem, two mount points): the sandbox still uses it.
      if (device && (attached.get(device) ?? 0) > 1) continue;
      this.mounted.delete(id);
      const unmounting = this.releaseMount(id, device !== undefined, false)
        .then(
          (released) => {
            if (released) count += 1;
            else this.mounted.add(id);
          },
          (error) => {
            this.mounted.add(id);
            this.options.onError?.(error);
          },
        )
        .finally(() => {
          this.idle.touch(id);
          this.unmounting.delete(id);
        });
      this.unmounting.set(id, unmounting);
      work.push(unmounting);
    }
    await Promise.all(work);
    return count;
  }

  /** Keeps `id` mounted (mounting it again if it was idle) while `work` runs. */
  private async use<T>(id: string, work: () => Promise<T>): Promise<T> {
    this.idle.begin(id);
    try {
      await this.unmounting.get(id);
      if (!this.mounted.has(id) && !this.creating.has(id)) await this.open(id);
      return await work();
    } finally {
      this.idle.end(id);
    }
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

  private workspace(id: string): Workspace {
    this.idle.touch(id);
    return new LeasedWorkspace(new LocalWorkspace(id, this.mountPath(id), 'filesystem'), {
      use: (workspace, work) => this.use(workspace, work),
    });
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
    if (!existsSync(this.imagePath(id))) throw new NotFoundError(`workspace ${id} no longer exists`);
    await this.holders.locked(id, async () => {
      await this.holders.hold(id);
      // Mounted by a replica, or left by a server whose holders all died: still good.
      if ((await mountPoints()).has(this.mountPath(id))) return;
      try {
        await this.images.mount(this.imagePath(id), this.mountPath(id), false);
        await this.images.removeLostFound(this.mountPath(id));
      } catch (error) {
        await this.holders.release(id);
        throw error;
      }
    });
    this.mounted.add(id);
    this.idle.touch(id);
  }

  /** `fresh`: an image nobody else knows yet (see Ext4Images.mount). */
  private async mountImage(id: string, fresh: boolean): Promise<void> {
    await this.holders.locked(id, async () => {
      await this.holders.hold(id);
      await this.images.mount(this.imagePath(id), this.mountPath(id), fresh);
    });
    this.mounted.add(id);
    this.idle.touch(id);
  }

  private async unmount(id: string): Promise<void> {
    const point = this.mountPath(id);
    this.mounted.delete(id);
    await this.holders.locked(id, async () => {
      if ((await mountPoints()).has(point)) await this.images.unmount(point);
    });
  }
}
