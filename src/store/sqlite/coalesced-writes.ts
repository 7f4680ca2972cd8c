/** What the writes of one turn run in: `transaction(fn)` wraps fn (a savepoint when nested), as better-sqlite3's. */
export interface TransactionRunner {
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
}

interface Queued {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Every write the store is asked for in one turn of the event loop, committed in one
 * transaction at the end of the turn: `write` resolves with its own result once its
 * transaction is committed. A burst of new chats makes many small writes in one turn (thread,
 * run, question, title, events), and a commit costs far more than a write in a transaction
 * (docs/performance.md#coalesced-writes). Each write runs in a savepoint of its own, in the
 * order it was asked for, and whatever it reads it reads inside the transaction, after the
 * writes before it: a write that throws (a unique key, a refused run) is rolled back alone
 * and fails only its caller. Should the commit itself fail, each write is tried again in a
 * transaction of its own.
 */
export class CoalescedWrites {
  private queued: Queued[] = [];
  /** One write in a transaction, or in a savepoint inside one (made once: a wrapper costs). */
  private readonly one: (write: () => unknown) => unknown;
  /** Several writes in one transaction, each in its own savepoint; what each came to. */
  private readonly all: (queued: Queued[]) => Array<{ value: unknown } | { error: unknown }>;

  constructor(db: TransactionRunner) {
    this.one = db.transaction((write: () => unknown) => write());
    this.all = db.transaction((queued: Queued[]) =>
      queued.map(({ write }) => {
        try {
          return { value: this.one(write) };
        } catch (error) {
          return { error };
        }
      }),
    );
  }

  write<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (this.queued.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also called before the database closes). */
  flush(): void {
    const queued = this.queued;
    if (!queued.length) return;
    this.queued = [];
    let outcomes: Array<{ value: unknown } | { error: unknown }> | undefined;
    if (queued.length > 1) {
      try {
        outcomes = this.all(queued);
      } catch {
        // The commit itself failed: each write again on its own, below.
      }
    }
    queued.forEach((q, index) => {
      let outcome = outcomes?.[index];
      if (!outcome) {
        try {
          outcome = { value: this.one(q.write) };
        } catch (error) {
          outcome = { error };
        }
      }
      if ('error' in outcome) q.reject(outcome.error);
      else q.resolve(outcome.value);
    });
  }
}
