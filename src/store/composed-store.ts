import type { Store } from './store.ts';

type Part<K extends keyof Store> = Pick<Store, K>;

/** The parts a store is made of, one file each beside the store (docs/architecture.md#persistence). */
export interface StoreParts {
  files: Part<'createFile' | 'getFile' | 'listFiles' | 'deleteFile'>;
  threads: Part<
    | 'createThread'
    | 'getThread'
    | 'listThreads'
    | 'updateThread'
    | 'deleteThread'
    | 'touchThread'
    | 'staleThreads'
    | 'addMessage'
    | 'listMessages'
  >;
  runs: Part<
    | 'createRun'
    | 'runEvents'
    | 'appendEvents'
    | 'finishRun'
    | 'getRun'
    | 'listRuns'
    | 'threadEvents'
    | 'threadEventsPage'
  >;
  leases: Part<'markInterruptedRuns' | 'runningRuns' | 'renewLeases' | 'requestCancel'>;
  owners: Part<'recordWorkspaceBytes' | 'usage' | 'stats'>;
}

/**
 * A store as its parts: each query goes to the part that owns it. The SQLite and PostgreSQL
 * stores differ in their parts' SQL and in how they open, answer a ping and close, which
 * each says itself; how a query reaches its part is the same and lives here once.
 */
export abstract class ComposedStore implements Omit<Store, 'kind' | 'notices' | 'ping' | 'close'> {
  constructor(private readonly parts: StoreParts) {}

  createFile(...a: Parameters<Store['createFile']>): ReturnType<Store['createFile']> {
    return this.parts.files.createFile(...a);
  }
  getFile(...a: Parameters<Store['getFile']>): ReturnType<Store['getFile']> {
    return this.parts.files.getFile(...a);
  }
  listFiles(...a: Parameters<Store['listFiles']>): ReturnType<Store['listFiles']> {
    return this.parts.files.listFiles(...a);
  }
  deleteFile(...a: Parameters<Store['deleteFile']>): ReturnType<Store['deleteFile']> {
    return this.parts.files.deleteFile(...a);
  }

  createThread(...a: Parameters<Store['createThread']>): ReturnType<Store['createThread']> {
    return this.parts.threads.createThread(...a);
  }
  getThread(...a: Parameters<Store['getThread']>): ReturnType<Store['getThread']> {
    return this.parts.threads.getThread(...a);
  }
  listThreads(...a: Parameters<Store['listThreads']>): ReturnType<Store['listThreads']> {
    return this.parts.threads.listThreads(...a);
  }
  updateThread(...a: Parameters<Store['updateThread']>): ReturnType<Store['updateThread']> {
    return this.parts.threads.updateThread(...a);
  }
  deleteThread(...a: Parameters<Store['deleteThread']>): ReturnType<Store['deleteThread']> {
    return this.parts.threads.deleteThread(...a);
  }
  touchThread(...a: Parameters<Store['touchThread']>): ReturnType<Store['touchThread']> {
    return this.parts.threads.touchThread(...a);
  }
  staleThreads(...a: Parameters<Store['staleThreads']>): ReturnType<Store['staleThreads']> {
    return this.parts.threads.staleThreads(...a);
  }
  addMessage(...a: Parameters<Store['addMessage']>): ReturnType<Store['addMessage']> {
    return this.parts.threads.addMessage(...a);
  }
  listMessages(...a: Parameters<Store['listMessages']>): ReturnType<Store['listMessages']> {
    return this.parts.threads.listMessages(...a);
  }

  createRun(...a: Parameters<Store['createRun']>): ReturnType<Store['createRun']> {
    return this.parts.runs.createRun(...a);
  }
  runEvents(...a: Parameters<Store['runEvents']>): ReturnType<Store['runEvents']> {
    return this.parts.runs.runEvents(...a);
  }
  appendEvents(...a: Parameters<Store['appendEvents']>): ReturnType<Store['appendEvents']> {
    return this.parts.runs.appendEvents(...a);
  }
  finishRun(...a: Parameters<Store['finishRun']>): ReturnType<Store['finishRun']> {
    return this.parts.runs.finishRun(...a);
  }
  getRun(...a: Parameters<Store['getRun']>): ReturnType<Store['getRun']> {
    return this.parts.runs.getRun(...a);
  }
  listRuns(...a: Parameters<Store['listRuns']>): ReturnType<Store['listRuns']> {
    return this.parts.runs.listRuns(...a);
  }
  threadEvents(...a: Parameters<Store['threadEvents']>): ReturnType<Store['threadEvents']> {
    return this.parts.runs.threadEvents(...a);
  }
  threadEventsPage(...a: Parameters<Store['threadEventsPage']>): ReturnType<Store['threadEventsPage']> {
    return this.parts.runs.threadEventsPage(...a);
  }

  markInterruptedRuns(
    ...a: Parameters<Store['markInterruptedRuns']>
  ): ReturnType<Store['markInterruptedRuns']> {
    return this.parts.leases.markInterruptedRuns(...a);
  }
  runningRuns(...a: Parameters<Store['runningRuns']>): ReturnType<Store['runningRuns']> {
    return this.parts.leases.runningRuns(...a);
  }
  renewLeases(...a: Parameters<Store['renewLeases']>): ReturnType<Store['renewLeases']> {
    return this.parts.leases.renewLeases(...a);
  }
  requestCancel(...a: Parameters<Store['requestCancel']>): ReturnType<Store['requestCancel']> {
    return this.parts.leases.requestCancel(...a);
  }

  recordWorkspaceBytes(
    ...a: Parameters<Store['recordWorkspaceBytes']>
  ): ReturnType<Store['recordWorkspaceBytes']> {
    return this.parts.owners.recordWorkspaceBytes(...a);
  }
  usage(...a: Parameters<Store['usage']>): ReturnType<Store['usage']> {
    return this.parts.owners.usage(...a);
  }
  stats(...a: Parameters<Store['stats']>): ReturnType<Store['stats']> {
    return this.parts.owners.stats(...a);
  }
}
