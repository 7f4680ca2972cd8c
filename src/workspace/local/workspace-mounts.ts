import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NotFoundError } from '../../errors/index.ts';
import type { Ext4Images } from './ext4-images.ts';
import { IdleMounts } from './idle-mounts.ts';
import { MountHolders } from './mount-holders.ts';
import { mountDevices, mountPoints } from './system-commands.ts';

const ID = /^ws-[0-9a-f]{24}$/;

/**
 * The mounts of a loop store's workspaces (docs/spec.md#workspace-mounts): which ones this
 * process holds, with a holder record each (`MountHolders`), and which are in use now
 * (`IdleMounts`). Mounting records the hold first; releasing unmounts only what no other live
 * process holds; idle ones are unmounted and mounted again by their next use.
 */
export class WorkspaceMounts {
  /** Workspaces this process has mounted (or found mounted) and holds. */
  private readonly held = new Set<string>();
  /** Idle workspaces being unmounted: a use waits for it, then mounts again. */
  private readonly unmounting = new Map<string, Promise<void>>();
  private readonly holders: MountHolders;
  readonly idle: IdleMounts;

  constructor(
    private readonly root: string,
    private readonly images: Ext4Images,
    now: () => number,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.holders = new MountHolders(root);
    this.idle = new IdleMounts(now);
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  get count(): number {
    return this.held.size;
  }

  imagePath(id: string): string {
    return join(this.root, `${id}.img`);
  }

  mountPath(id: string): string {
    return join(this.root, id);
  }

  /** Resolves once an idle unmount of `id` under way is over (a use then mounts it again). */
  async settled(id: string): Promise<void> {
    await this.unmounting.get(id);
  }

  /** Mounts a new image (`fresh`: nobody else knows it yet, see Ext4Images.mount). */
  async mountNew(id: string, fresh: boolean): Promise<void> {
    await this.holders.locked(id, async () => {
      await this.holders.hold(id);
      await this.images.mount(this.imagePath(id), this.mountPath(id), fresh);
    });
    this.held.add(id);
    this.idle.touch(id);
  }

  /** Holds `id`, mounting it unless a replica (or a dead server) left it mounted. */
  async mountExisting(id: string): Promise<void> {
    if (!existsSync(this.imagePath(id))) throw new NotFoundError(`workspace ${id} no longer exists`);
    await this.holders.locked(id, async () => {
      await this.holders.hold(id);
      if ((await mountPoints()).has(this.mountPath(id))) return;
      try {
        await this.images.mount(this.imagePath(id), this.mountPath(id), false);
        await this.images.removeLostFound(this.mountPath(id));
      } catch (error) {
        await this.holders.release(id);
        throw error;
      }
    });
    this.held.add(id);
    this.idle.touch(id);
  }

  /** Unmounts `id` whoever holds it and forgets its holders (the workspace is being destroyed). */
  async remove(id: string): Promise<void> {
    await this.unmounting.get(id);
    const point = this.mountPath(id);
    this.held.delete(id);
    await this.holders.locked(id, async () => {
      if ((await mountPoints()).has(point)) await this.images.unmount(point);
    });
  }

  /** After `remove` and the image's unlink: no record of `id` stays. */
  async forget(id: string): Promise<void> {
    await this.holders.forget(id);
    this.idle.forget(id);
  }

  /**
   * Releases every workspace this process holds, unmounting those no other live process holds
   * (replicas keep theirs). Every one is tried, whichever fails: the failures are returned.
   */
  async releaseAll(): Promise<unknown[]> {
    await Promise.allSettled([...this.unmounting.values()]);
    const failures: unknown[] = [];
    // The mount table is read once: once per workspace made stopping quadratic in their number.
    const points = await mountPoints();
    const held = [...this.held];
    this.held.clear();
    await Promise.all(
      held.map((id) =>
        this.release(id, points.has(this.mountPath(id)), true).catch((error) => failures.push(error)),
      ),
    );
    return failures;
  }

  /**
   * Mounts of workspaces whose holders all died (a killed server, a replica that crashed) are
   * released at start: taken over on their next use, never left for the host to keep.
   */
  async releaseDeadHolders(): Promise<void> {
    const points = await mountPoints();
    const ids = new Set(await this.holders.recorded());
    for (const point of points) {
      const id = point.startsWith(`${this.root}/`) ? point.slice(this.root.length + 1) : '';
      if (ID.test(id)) ids.add(id);
    }
    for (const id of ids) await this.release(id, points.has(this.mountPath(id)), true);
  }

  /**
   * Unmounts the workspaces nobody used for `idleMs`, except those `keep` names and those bound
   * into a sandbox's slot. Returns how many were unmounted (or released to another holder).
   */
  async unmountIdle(idleMs: number, keep: (id: string) => boolean): Promise<number> {
    const candidates = this.idle
      .idle(this.held, idleMs)
      .filter((id) => !keep(id) && !this.unmounting.has(id));
    if (candidates.length === 0) return 0;
    const devices = await mountDevices();
    const mountsOf = new Map<string, number>();
    for (const device of devices.values()) mountsOf.set(device, (mountsOf.get(device) ?? 0) + 1);
    let count = 0;
    const work: Promise<void>[] = [];
    for (const id of candidates) {
      const device = devices.get(this.mountPath(id));
      // Checked again after the await, synchronously with the marking below: a use that began
      // meanwhile keeps it, and one that begins later waits for the unmount.
      if (this.idle.busy(id) || keep(id) || !this.held.has(id)) continue;
      // Bound into a sandbox's slot (one filesystem, two mount points): the sandbox still uses it.
      if (device && (mountsOf.get(device) ?? 0) > 1) continue;
      this.held.delete(id);
      const unmounting = this.release(id, device !== undefined, false)
        .then(
          (released) => {
            if (released) count += 1;
            else this.held.add(id);
          },
          (error) => {
            this.held.add(id);
            this.onError?.(error);
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

  /**
   * Drops this process's hold of `id` and unmounts it when no other live process holds it.
   * `lazy`: a busy filesystem is detached now and freed when the last user lets go (a stop);
   * otherwise a busy one stays mounted and held (an idle unmount), and this returns false.
   */
  private release(id: string, mounted: boolean, lazy: boolean): Promise<boolean> {
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
}
