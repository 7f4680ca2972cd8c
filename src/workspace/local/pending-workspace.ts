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

/**
 * A workspace whose filesystem is still being made (mkfs and mount take tens of
 * milliseconds, seconds when hundreds of threads start at once): every method waits for it,
 * so a new thread's chat streams its first answer without waiting. A failure to make it is
 * each method's error.
 */
export class PendingWorkspace implements Workspace {
  private made = false;
  /**
   * Nothing was written yet: a new filesystem is empty and no cell can run on it before it is
   * made, so reads need not wait (a new thread's prompt lists its files at once).
   */
  private untouched = true;
  private failure: unknown;

  constructor(
    readonly id: string,
    /** The mount point, known before the filesystem is on it. */
    private readonly path: string,
    private readonly making: Promise<Workspace>,
  ) {
    making.then(
      () => {
        this.made = true;
      },
      (error: unknown) => {
        this.failure = error; // reported by each method that waits for it
      },
    );
  }

  async ready(): Promise<void> {
    await this.making;
  }

  async keepMounted<T>(work: () => Promise<T>): Promise<T> {
    return (await this.making).keepMounted(work);
  }

  async list(options?: ListOptions): Promise<WorkspaceEntry[]> {
    if (this.untouched && !this.made) return this.failIfBroken([]);
    return (await this.making).list(options);
  }

  async stat(path: string): Promise<WorkspaceEntry | undefined> {
    if (this.untouched && !this.made) return this.failIfBroken(undefined);
    return (await this.making).stat(path);
  }

  async open(path: string): Promise<WorkspaceFile> {
    return (await this.making).open(path);
  }

  async write(path: string, data: Buffer | Readable, options?: WriteOptions): Promise<{ bytes: number }> {
    this.untouched = false;
    return (await this.making).write(path, data, options);
  }

  async remove(path: string): Promise<boolean> {
    return (await this.making).remove(path);
  }

  async usage(): Promise<WorkspaceUsage> {
    return (await this.making).usage();
  }

  /** `value`, unless making the filesystem has already failed (then that error). */
  private async failIfBroken<T>(value: T): Promise<T> {
    if (this.failure) throw this.failure;
    return value;
  }

  mount(): WorkspaceMount {
    // Binding the mount point before the filesystem is on it would put a cell's files outside it.
    if (!this.made) throw new Error(`workspace ${this.id} is not ready: await ready() before mount()`);
    return { kind: 'host-directory', path: this.path };
  }
}
