import { NotFoundError } from '../errors/index.ts';
import type { Store } from '../store/store.ts';
import type { RunThreads } from './submit.ts';

/**
 * Threads straight from a store, for a run service of one process (`analyst run`, the
 * evaluation harness, `analyst mcp --workspace`): the caller makes its threads and their
 * workspaces itself and deletes none while a run goes on, so `submit` makes none either.
 */
export function storeThreads(store: Store): RunThreads {
  return {
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
    assertWritable() {},
  };
}
