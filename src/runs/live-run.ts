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

  /**
   * The events from number `from` on, as they come, until the run is done or `signal` aborts.
   * One abort listener serves the whole subscription: one per wait (an add and a remove on an
   * EventTarget for every chunk) cost as much as relaying the chunk under 200 streams.
   */
  async *follow(from: number, signal?: AbortSignal): AsyncGenerator<StoredEvent, void> {
    let stopped = signal?.aborted ?? false;
    let wake: (() => void) | undefined;
    const onAbort = () => {
      stopped = true;
      wake?.();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let next = from;
      for (;;) {
        while (next < this.events.length) {
          if (stopped) return;
          yield this.events[next++]!;
        }
        if (this.finished || stopped) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.waiters.push(resolve);
        });
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
