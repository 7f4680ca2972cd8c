import { createHash } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { ID_PATTERN, newId } from '../ids/api-ids.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { FileRecord, Store, ThreadRecord } from '../store/store.ts';
import { WorkspaceFileExistsError } from '../workspace/index.ts';
import type { Workspace, WorkspaceStore } from '../workspace/workspace.ts';
import { migrateLegacyWorkspace } from './legacy-workspace.ts';
import { numberedName, safeFilename } from './safe-filename.ts';
import { ThreadLocks } from './thread-locks.ts';

/** Where uploaded files' bytes are read from (the server's file storage). */
export interface UploadedFiles {
  open(fileId: string): Readable;
}

/** What deleting a thread needs of its runs: stop them (on any replica) and wait until they are over. */
export interface ThreadRuns {
  cancelThread(threadId: string): Promise<boolean>;
  idle(threadId: string): Promise<void>;
}

export interface ThreadServiceOptions {
  store: Store;
  sandbox: SandboxManager;
  workspaces: WorkspaceStore;
  files: UploadedFiles;
  /** False when sessions cannot run here: workspaces are then made without a warm sandbox. */
  sessions: boolean;
  /** Per-key limits: refuses a thread over the owner's limit (LimitExceededError). */
  limits?: { admitThread(owner: string): Promise<void> };
}

/**
 * Threads and their workspaces: create, find (per owner), attach files, delete. It owns the
 * threads' lock (`locks`, shared with the run service): a thread being deleted is marked
 * first, synchronously, and from then on no exec, upload or run can start on it (409); the
 * ones under way are stopped and awaited before its sandbox is removed and its workspace
 * destroyed, so nothing runs on a workspace that is going away.
 */
export class ThreadService {
  /** Runs, writes and deletes of threads on this server: one lock for all three. */
  readonly locks = new ThreadLocks();
  private readonly migrations = new Map<string, Promise<Workspace>>();

  private readonly store: Store;
  private readonly sandbox: SandboxManager;
  private readonly workspaces: WorkspaceStore;
  private readonly files: UploadedFiles;
  private readonly sessions: boolean;
  private readonly limits: ThreadServiceOptions['limits'];

  constructor(options: ThreadServiceOptions) {
    this.store = options.store;
    this.sandbox = options.sandbox;
    this.workspaces = options.workspaces;
    this.files = options.files;
    this.sessions = options.sessions;
    this.limits = options.limits;
  }

  async create(
    owner: string,
    fields: { title?: string | null; metadata?: Record<string, unknown> } = {},
  ): Promise<ThreadRecord> {
    await this.limits?.admitThread(owner);
    const workspace = this.sessions
      ? (await this.sandbox.allocateWorkspace()).workspace
      : await this.workspaces.create();
    return this.store.createThread({
      id: newId('thread'),
      owner,
      workspace: workspace.id,
      title: fields.title ?? null,
      metadata: fields.metadata ?? {},
    });
  }

  /** The owner's thread, or NotFoundError (also for other owners' ids and malformed ids). */
  async get(owner: string, id: string, param = 'thread_id'): Promise<ThreadRecord> {
    const thread = ID_PATTERN.thread.test(id) ? await this.store.getThread(owner, id) : undefined;
    if (!thread) throw new NotFoundError(`no thread ${JSON.stringify(id)}`, { param });
    return thread;
  }

  /** The owner's uploaded file, or NotFoundError. */
  async file(owner: string, id: string, param = 'file_ids'): Promise<FileRecord> {
    const file = ID_PATTERN.file.test(id) ? await this.store.getFile(owner, id) : undefined;
    if (!file) throw new NotFoundError(`no file ${JSON.stringify(id)}`, { param });
    return file;
  }

  /** The thread's workspace, mounted and ready. */
  async workspace(thread: ThreadRecord): Promise<Workspace> {
    if (!isAbsolute(thread.workspace)) return this.workspaces.open(thread.workspace);
    // A thread from before workspaces had ids: its directory becomes a workspace once.
    let migration = this.migrations.get(thread.id);
    if (!migration) {
      migration = migrateLegacyWorkspace(this.store, this.workspaces, thread).finally(() =>
        this.migrations.delete(thread.id),
      );
      this.migrations.set(thread.id, migration);
    }
    return migration;
  }

  /** Records the bytes the thread's workspace holds now (per-key limits count them). */
  async recordUsage(thread: ThreadRecord): Promise<void> {
    const workspace = await this.workspace(thread);
    await this.store.recordWorkspaceBytes(thread.id, (await workspace.usage()).bytes);
  }

  /** After a run (the run service's `AfterRun`): the workspace's usage is recorded. */
  async afterRun(thread: ThreadRecord): Promise<void> {
    await this.recordUsage(thread);
  }

  /** Copies uploaded files into the workspace under their names (see `place`). */
  async attach(thread: ThreadRecord, files: readonly FileRecord[]): Promise<string[]> {
    const names: string[] = [];
    for (const file of files) {
      names.push(
        await this.place(thread, () => this.files.open(file.id), safeFilename(file.filename), file.sha256),
      );
    }
    return names;
  }

  /**
   * Writes a file into the workspace as `name`. The same content already there is not
   * written twice; a different file with the name gets `name (2).ext`. The write is
   * exclusive and through the workspace, so a cell cannot make the host write elsewhere.
   */
  async place(thread: ThreadRecord, open: () => Readable, name: string, sha256: string): Promise<string> {
    const workspace = await this.workspace(thread);
    for (let n = 1; n <= 1000; n++) {
      const candidate = n === 1 ? name : numberedName(name, n);
      try {
        await workspace.write(candidate, open(), { exclusive: true });
        return candidate;
      } catch (error) {
        if (!(error instanceof WorkspaceFileExistsError)) throw error;
        if ((await sha256Of(workspace, candidate)) === sha256) return candidate;
      }
    }
    throw new InvalidInputError(`too many files named like ${name}`, { param: 'file' });
  }

  /** Deletes the thread: its runs (`runs`) and operations are stopped and awaited first. */
  async delete(thread: ThreadRecord, runs: ThreadRuns): Promise<void> {
    const deletion = this.locks.beginDelete(thread.id);
    try {
      await runs.cancelThread(thread.id);
      deletion.abortWrites();
      await runs.idle(thread.id);
      await deletion.writesDone();
      await this.sandbox.closeSession(thread.id);
      await this.sandbox.releaseWorkspace(thread.workspace);
      await this.store.deleteThread(thread.owner, thread.id);
      await this.workspaces.destroy(thread.workspace);
    } finally {
      deletion.end();
    }
  }
}

async function sha256Of(workspace: Workspace, name: string): Promise<string | undefined> {
  try {
    const file = await workspace.open(name);
    const hash = createHash('sha256');
    for await (const chunk of file.stream()) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch {
    return undefined; // a symlink or a directory: certainly not the same file
  }
}
