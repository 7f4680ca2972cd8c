import { existsSync } from 'node:fs';
import { mkdir, readdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import { WorkspaceUnavailableError } from '../errors/workspace-unavailable-error.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';
import { Ext4Images, unsupportedReason } from './ext4-images.ts';
import { ImageTemplate } from './image-template.ts';
import { LocalWorkspace } from './local-workspace.ts';
import { PendingWorkspace } from './pending-workspace.ts';
import { mountPoints } from './system-commands.ts';

export interface LoopWorkspaceOptions {
  /** Holds each workspace's image (`<id>.img`) and mount point (`<id>/`). */
  root: string;
  /** Size quota of a new workspace. Default 8 GiB (DEFAULT_QUOTA_BYTES). */
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
 * is written to it (docs/performance.md#image-template).
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
  private readonly mounted = new Set<string>();
  private readonly mounting = new Map<string, Promise<void>>();
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
  }

  /** A store on `root`, or WorkspaceUnavailableError saying why this host cannot have one. */
  static async create(options: LoopWorkspaceOptions): Promise<LoopWorkspaceStore> {
    const why = unsupportedReason();
    if (why) throw new WorkspaceUnavailableError(why);
    await mkdir(options.root, { recursive: true, mode: 0o700 });
    const store = new LoopWorkspaceStore(options);
    const rehearsal = `ws-${randomHex(12)}`;
    await store.images.rehearse(store.imagePath(rehearsal), store.mountPath(rehearsal));
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
    await Promise.allSettled([...this.mounting.values()]);
    for (const id of this.spares.splice(0)) await this.destroySpare(id);
    await this.template.remove();
    if (this.options.shared) {
      this.mounted.clear();
      return;
    }
    // The mount table is read once: once per workspace made stopping quadratic in their number.
    const points = await mountPoints();
    await Promise.all(
      [...this.mounted].map(async (id) => {
        this.mounted.delete(id);
        if (points.has(this.mountPath(id))) await this.images.unmount(this.mountPath(id)).catch(() => {});
      }),
    );
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
      await this.images.removeLostFound(this.mountPath(id));
    } catch (error) {
      // Another process (a replica) mounted it at the same moment: mount refuses a second one.
      if (!(await mountPoints()).has(this.mountPath(id))) throw error;
      this.mounted.add(id);
    }
  }

  /** `fresh`: an image nobody else knows yet (see Ext4Images.mount). */
  private async mountImage(id: string, fresh: boolean): Promise<void> {
    await this.images.mount(this.imagePath(id), this.mountPath(id), fresh);
    this.mounted.add(id);
  }

  private async unmount(id: string): Promise<void> {
    const point = this.mountPath(id);
    this.mounted.delete(id);
    if ((await mountPoints()).has(point)) await this.images.unmount(point);
  }
}
