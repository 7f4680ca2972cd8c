import type { AgentEvent } from '../agent/events.ts';
import type { Store, StoredEvent } from '../store/store.ts';

/** Events that stream in many small pieces: they may wait for the run's next write. */
const STREAMED: ReadonlySet<AgentEvent['type']> = new Set(['text-delta', 'execution-output']);

/** How long a streamed piece may wait for the run's next write. */
const STREAMED_WRITE_INTERVAL_MS = 100;

export interface EventWriterOptions {
  /** Streamed pieces are written at most this often (ms); 0 writes every turn. Default 100. */
  streamedIntervalMs?: number;
}

/**
 * Stores a run's events in order. Every event is written at the end of the turn of the event
 * loop it came in (one transaction for the turn), except streamed pieces — model text, cell
 * output — which are written at most every `streamedIntervalMs`: the first after a quiet spell
 * at once, the rest with the next write. A commit costs per table page it touches, and many
 * runs streaming at once touch a page each per commit, so fewer, larger batches cost less a
 * row (docs/performance.md#event-writes). Subscribers read
 * a live run from memory, so nobody waits for these writes; any other event (a cell starting,
 * an answer, an error) writes what is pending with it, in order.
 *
 * Batches are written one after another, never two at once: on a store with a connection
 * pool two in flight could commit out of order, and a reader on another replica would see a
 * later event before an earlier one. `flush()` makes everything durable; the run's end is
 * flushed before it is reported.
 */
export class EventWriter {
  private pending: StoredEvent[] = [];
  /** A write at the end of this turn is scheduled. */
  private soon = false;
  /** A write when the streamed pieces' interval is over is scheduled. */
  private timer: NodeJS.Timeout | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** The batches written so far, in order; rejected with the first failure. */
  private written: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;

  constructor(
    private readonly store: Store,
    private readonly runId: string,
    options: EventWriterOptions = {},
  ) {
    this.intervalMs = options.streamedIntervalMs ?? STREAMED_WRITE_INTERVAL_MS;
  }

  /** Queues an event (numbered by the caller, in order) for a coming write. */
  add(event: StoredEvent): void {
    this.pending.push(event);
    if (this.soon) return;
    const wait = STREAMED.has(event.event.type) ? this.lastWriteAt + this.intervalMs - performance.now() : 0;
    if (wait > 0) {
      this.timer ??= setTimeout(() => this.write(), wait);
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.soon = true;
    setImmediate(() => this.write());
  }

  /** Writes everything added so far (after what is being written); rethrows a failure. */
  async flush(): Promise<void> {
    this.soon = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      this.lastWriteAt = performance.now();
      this.written = this.written.then(() => this.store.appendEvents(this.runId, batch));
    }
    await this.written;
  }

  private write(): void {
    // A failure is kept in `written` and rethrown by the next flush().
    this.flush().catch(() => {});
  }
}
