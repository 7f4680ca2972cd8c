import { ConflictError } from '../errors/index.ts';
import { RunSlot } from './run-slot.ts';

/** A write on a thread's workspace (an exec, an upload, an extract): a delete stops and waits for it. */
export interface ThreadWrite {
  /** Aborted when the thread is being deleted. */
  readonly signal: AbortSignal;
  /** Ends the write (once); a delete waiting for it goes on. */
  end(): void;
}

/** A thread marked as being deleted: nothing new starts on it until `end`. */
export interface ThreadDeletion {
  /** Aborts the writes under way. */
  abortWrites(): void;
  /** Resolves when no write is under way any more. */
  writesDone(): Promise<void>;
  /** The thread is gone (or its delete failed): the mark goes. */
  end(): void;
}

interface ThreadState {
  run?: RunSlot;
  writes: Set<AbortController>;
  deleting: boolean;
  /** Called when the last write ends (what `writesDone` waits on). */
  idle: Set<() => void>;
}

/**
 * The one lock of a thread's state on this server (docs/architecture.md#threads): a run slot
 * (one run at a time), the writes going on (execs, uploads, extracts: any number, beside a
 * run too), and the delete mark. Every operation is synchronous, so of two requests in one
 * turn exactly one claims what only one may have.
 *
 * - a run claims the slot: ConflictError while another run holds it or the thread is being deleted;
 * - a write begins: ConflictError while the thread is being deleted;
 * - a delete marks the thread (ConflictError when already marked), after which nothing new
 *   starts; it stops what goes on and waits for it (`ThreadDeletion`) before the workspace goes.
 */
export class ThreadLocks {
  private readonly threads = new Map<string, ThreadState>();
  private runCount = 0;

  /** Throws ConflictError (409) while the thread is being deleted. */
  assertWritable(threadId: string): void {
    if (this.threads.get(threadId)?.deleting) {
      throw new ConflictError(`thread ${threadId} is being deleted`, { param: 'thread_id' });
    }
  }

  /**
   * Claims the thread's run slot, synchronously: ConflictError while the thread is being
   * deleted or a run holds the slot. `onEnd` is called when the slot is freed.
   */
  claimRun(threadId: string, onEnd?: () => void): RunSlot {
    this.assertWritable(threadId);
    const state = this.stateOf(threadId);
    if (state.run) {
      throw new ConflictError(`thread ${threadId} is already running an analysis; wait for it or cancel it`);
    }
    const slot = new RunSlot(threadId, (ended) => {
      if (state.run !== ended) return;
      state.run = undefined;
      this.runCount -= 1;
      this.prune(threadId, state);
      onEnd?.();
    });
    state.run = slot;
    this.runCount += 1;
    return slot;
  }

  /** The slot of the thread's run on this server, if a run holds it. */
  runOf(threadId: string): RunSlot | undefined {
    return this.threads.get(threadId)?.run;
  }

  /** Throws ConflictError while a run holds the thread (`doing`: what the caller wanted to do). */
  assertNoRun(threadId: string, doing: string): void {
    if (this.runOf(threadId)) {
      throw new ConflictError(`thread ${threadId} is running an analysis; cancel it before ${doing}`, {
        param: 'thread_id',
      });
    }
  }

  /** How many threads have a run on this server. */
  get runs(): number {
    return this.runCount;
  }

  /** Every run slot held now. */
  runSlots(): RunSlot[] {
    const slots: RunSlot[] = [];
    for (const state of this.threads.values()) if (state.run) slots.push(state.run);
    return slots;
  }

  /** Begins a write on the thread's workspace: ConflictError while it is being deleted. */
  beginWrite(threadId: string): ThreadWrite {
    this.assertWritable(threadId);
    const state = this.stateOf(threadId);
    const controller = new AbortController();
    state.writes.add(controller);
    let ended = false;
    return {
      signal: controller.signal,
      end: () => {
        if (ended) return;
        ended = true;
        state.writes.delete(controller);
        if (state.writes.size === 0) for (const resolve of [...state.idle]) resolve();
        this.prune(threadId, state);
      },
    };
  }

  /** Marks the thread as being deleted: ConflictError when it already is. */
  beginDelete(threadId: string): ThreadDeletion {
    this.assertWritable(threadId);
    const state = this.stateOf(threadId);
    state.deleting = true;
    let ended = false;
    return {
      abortWrites: () => {
        for (const controller of state.writes) controller.abort();
      },
      writesDone: () => {
        if (state.writes.size === 0) return Promise.resolve();
        return new Promise<void>((resolve) => {
          const done = () => {
            state.idle.delete(done);
            resolve();
          };
          state.idle.add(done);
        });
      },
      end: () => {
        if (ended) return;
        ended = true;
        state.deleting = false;
        this.prune(threadId, state);
      },
    };
  }

  private stateOf(threadId: string): ThreadState {
    let state = this.threads.get(threadId);
    if (!state) {
      state = { writes: new Set(), deleting: false, idle: new Set() };
      this.threads.set(threadId, state);
    }
    return state;
  }

  /** Forgets a thread with nothing going on, so the map holds only busy threads. */
  private prune(threadId: string, state: ThreadState): void {
    if (state.run || state.writes.size || state.deleting || state.idle.size) return;
    if (this.threads.get(threadId) === state) this.threads.delete(threadId);
  }
}
