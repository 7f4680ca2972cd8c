import type { Store, StoredEvent } from '../store/store.ts';

/**
 * Stores a run's events in order, one transaction per turn of the event loop: a model that
 * streams fast produces many text deltas per turn, and one commit each would cost more than
 * relaying them (measured: ~33 µs a commit, ~6 µs a row in a batch). Batches are written
 * one after another, never two at once: on a store with a connection pool two in flight
 * could commit out of order, and a reader on another replica would see a later event
 * before an earlier one. `flush()` makes everything durable; the run's end is flushed
 * before it is reported.
 */
export class EventWriter {
  private pending: StoredEvent[] = [];
  private scheduled = false;
  /** The batches written so far, in order; rejected with the first failure. */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly runId: string,
  ) {}

  /** Queues an event (numbered by the caller, in order) for the next write. */
  add(event: StoredEvent): void {
    this.pending.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        // A failure is kept in `written` and rethrown by the next flush().
        this.flush().catch(() => {});
      });
    }
  }

  /** Writes everything added so far (after what is being written); rethrows a failure. */
  async flush(): Promise<void> {
    if (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      this.written = this.written.then(() => this.store.appendEvents(this.runId, batch));
    }
    await this.written;
  }
}
