import pg from 'pg';
import type { StoreNotices } from '../store.ts';

/** The channels the store notifies on (payload: a run or thread id). */
export const CHANNELS = {
  run: 'analyst_run',
  cancel: 'analyst_cancel',
  thread: 'analyst_thread',
} as const;

/**
 * LISTEN on one dedicated connection, fanned out to in-process listeners. When the
 * connection drops it reconnects (after `retryMs`); notices sent meanwhile are lost, which
 * is why every listener also polls — a notice only makes it look sooner.
 */
export class PgNotices implements StoreNotices {
  private client: pg.Client | undefined;
  private readonly runs = new Map<string, Set<() => void>>();
  private readonly cancels = new Set<(runId: string) => void>();
  private readonly threads = new Set<(threadId: string) => void>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly options: { retryMs?: number; onError?: (error: unknown) => void } = {},
  ) {}

  /** Connects and listens; resolves once notices flow. */
  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    await client.connect();
    await client.query(
      Object.values(CHANNELS)
        .map((channel) => `LISTEN ${channel}`)
        .join('; '),
    );
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  onRunChange(runId: string, listener: () => void): () => void {
    let set = this.runs.get(runId);
    if (!set) {
      set = new Set();
      this.runs.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.runs.get(runId) === set) this.runs.delete(runId);
    };
  }

  onCancelRequest(listener: (runId: string) => void): () => void {
    this.cancels.add(listener);
    return () => this.cancels.delete(listener);
  }

  onThreadDeleted(listener: (threadId: string) => void): () => void {
    this.threads.add(listener);
    return () => this.threads.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private dispatch(channel: string, payload: string): void {
    if (channel === CHANNELS.run) for (const listener of this.runs.get(payload) ?? []) listener();
    else if (channel === CHANNELS.cancel) for (const listener of this.cancels) listener(payload);
    else if (channel === CHANNELS.thread) for (const listener of this.threads) listener(payload);
  }

  private lost(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (error) this.options.onError?.(error);
    client.end().catch(() => {});
    if (this.closed) return;
    const again = () => {
      this.retry = undefined;
      if (this.closed) return;
      this.start().catch((failure) => {
        this.options.onError?.(failure);
        this.retry = setTimeout(again, this.options.retryMs ?? 1000);
        this.retry.unref();
      });
    };
    this.retry = setTimeout(again, this.options.retryMs ?? 1000);
    this.retry.unref();
  }
}
