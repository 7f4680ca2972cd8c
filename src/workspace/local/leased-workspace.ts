import type { Readable } from 'node:stream';
import type {
  ListOptions,
  Workspace,
  WorkspaceEntry,
  WorkspaceFile,
  WorkspaceMount,
  WorkspaceUsage,
  WriteOptions,
} from '../workspace.ts';

/** What a leased workspace asks of its store: its filesystem mounted while `work` runs. */
export interface MountLease {
  /** Mounts the workspace again if it was unmounted while idle, and keeps it mounted during `work`. */
  use<T>(id: string, work: () => Promise<T>): Promise<T>;
}

/**
 * A loop workspace whose filesystem may be unmounted while nobody uses it
 * (ANALYST_WORKSPACE_IDLE_UNMOUNT_MS): each method mounts it again first and holds a lease
 * while it runs, so an idle unmount never starts under it. An open file keeps the filesystem
 * busy by itself (an idle unmount is never lazy: it fails and is tried again later).
 */
export class LeasedWorkspace implements Workspace {
  constructor(
    private readonly inner: Workspace,
    private readonly lease: MountLease,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  /** Mounted again if needed: the sandbox calls it before binding `mount()` into a container. */
  ready(): Promise<void> {
    return this.lease.use(this.id, () => this.inner.ready());
  }

  keepMounted<T>(work: () => Promise<T>): Promise<T> {
    return this.lease.use(this.id, () => this.inner.keepMounted(work));
  }

  list(options?: ListOptions): Promise<WorkspaceEntry[]> {
    return this.lease.use(this.id, () => this.inner.list(options));
  }

  stat(path: string): Promise<WorkspaceEntry | undefined> {
    return this.lease.use(this.id, () => this.inner.stat(path));
  }

  open(path: string): Promise<WorkspaceFile> {
    return this.lease.use(this.id, () => this.inner.open(path));
  }

  write(path: string, data: Buffer | Readable, options?: WriteOptions): Promise<{ bytes: number }> {
    return this.lease.use(this.id, () => this.inner.write(path, data, options));
  }

  remove(path: string): Promise<boolean> {
    return this.lease.use(this.id, () => this.inner.remove(path));
  }

  usage(): Promise<WorkspaceUsage> {
    return this.lease.use(this.id, () => this.inner.usage());
  }

  mount(): WorkspaceMount {
    return this.inner.mount();
  }
}
