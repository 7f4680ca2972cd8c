import { NotFoundError } from '../errors/index.ts';
import type { FileRecord, Store, ThreadRecord } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { ThreadLocks } from './thread-locks.ts';

/** Threads as a run needs them (the shape of the run service's `RunThreads`). */
export interface StoreThreads {
  readonly locks: ThreadLocks;
  get(owner: string, id: string): Promise<ThreadRecord>;
  create(owner: string): Promise<ThreadRecord>;
  file(owner: string, id: string): Promise<FileRecord>;
  workspace(thread: ThreadRecord): Promise<Workspace>;
  attach(thread: ThreadRecord, files: readonly FileRecord[]): Promise<void>;
}

/**
 * Threads straight from a store, for a run service of one process (`analyst run`, the
 * evaluation harness, `analyst mcp --workspace`): the caller makes its threads and their
 * workspaces itself (`workspaceOf` finds them) and deletes none while a run goes on, so
 * runs make no thread and attach no upload either.
 */
export function storeThreads(
  store: Store,
  workspaceOf: (thread: ThreadRecord) => Promise<Workspace>,
): StoreThreads {
  return {
    locks: new ThreadLocks(),
    async get(owner, id) {
      const thread = await store.getThread(owner, id);
      if (!thread) throw new NotFoundError(`no thread ${JSON.stringify(id)}`, { param: 'thread_id' });
      return thread;
    },
    async create() {
      throw new NotFoundError('this process runs only on the threads it made: name one', {
        param: 'thread_id',
      });
    },
    async file(owner, id) {
      const file = await store.getFile(owner, id);
      if (!file) throw new NotFoundError(`no file ${JSON.stringify(id)}`, { param: 'file_ids' });
      return file;
    },
    workspace: workspaceOf,
    async attach() {},
  };
}
