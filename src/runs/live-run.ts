import type { AgentEvent } from '../agent/events.ts';
import type { StoredEvent } from '../store/store.ts';

/**
 * A run while it executes on this server: every event it produced, numbered, in memory, and
 * a way to wait for the next. Subscribers read from here (from any sequence number) until
 * the run is done; after that the store has every event, in the same numbering.
 */
export class LiveRun {
  readonly events: StoredEvent[] = [];
  private waiters: Array<() => void> = [];
  private finished = false;

  constructor(
    readonly id: string,
    readonly threadId: string,
    readonly controller: AbortController,
  ) {}

  get done(): boolean {
    return this.finished;
  }

  push(event: AgentEvent): StoredEvent {
    const stored = { seq: this.events.length, event };
    this.events.push(stored);
    this.wake();
    return stored;
  }

  finish(): void {
    this.finished = true;
    this.wake();
  }

  /** Resolves when an event arrives, the run finishes or `signal` aborts. */
  changed(signal?: AbortSignal): Promise<void> {
    if (this.finished || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
