import pg from 'pg';
import type { AgentEvent, RunCost } from '../../contract/events.ts';
import type { EventPage, EventPageOptions } from '../event-pages.ts';
import type {
  CreateRunOptions,
  FileRecord,
  LeaseRenewal,
  MessageRecord,
  NewMessage,
  OwnerUsage,
  Page,
  RunRecord,
  Store,
  StoredEvent,
  ThreadRecord,
  ThreadStats,
} from '../store.ts';
import { PgFiles } from './files.ts';
import { migrate } from './migrate.ts';
import { PgNotices } from './notices.ts';
import { PG_TYPES, PgDatabase } from './pg-database.ts';
import { PgRunLeases } from './run-leases.ts';
import { PgRuns } from './runs.ts';
import { PgThreads } from './threads.ts';
import { PgUsage } from './usage.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (ANALYST_DATABASE_URL). */
  url: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** Clock for record times, in ms since the epoch (leases use the database's clock). */
  now?: () => number;
  /** Background connection failures (an idle pooled connection or the LISTEN one). */
  onError?: (error: unknown) => void;
}

/**
 * The store for several replicas of one service: PostgreSQL through a connection pool.
 * Migrations run at `open`. Writes that other replicas must notice (events, a run's end,
 * a cancel request, a deleted thread) notify in the same statement, so a notice never
 * arrives before the data it announces is visible. Each part of the store (files, threads,
 * runs, leases, usage) is its own file beside this one; this class opens, closes and
 * composes them.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly notices: PgNotices;
  private readonly pool: pg.Pool;
  private readonly files: PgFiles;
  private readonly threads: PgThreads;
  private readonly runs: PgRuns;
  private readonly leases: PgRunLeases;
  private readonly owners: PgUsage;

  private constructor(pool: pg.Pool, notices: PgNotices, options: PostgresStoreOptions) {
    this.pool = pool;
    this.notices = notices;
    const db = new PgDatabase(pool, options.now ?? Date.now);
    this.files = new PgFiles(db);
    this.threads = new PgThreads(db);
    this.runs = new PgRuns(db);
    this.leases = new PgRunLeases(db);
    this.owners = new PgUsage(db);
  }

  /** Connects, migrates to the latest schema and starts listening for notices. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const config: pg.PoolConfig = {
      connectionString: options.url,
      types: PG_TYPES,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'analyst',
    };
    const pool = new pg.Pool(config);
    pool.on('error', (error) => options.onError?.(error));
    const notices = new PgNotices(
      { connectionString: options.url, types: PG_TYPES, application_name: 'analyst-notices' },
      { onError: options.onError },
    );
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
      await notices.start();
    } catch (error) {
      await notices.close();
      await pool.end().catch(() => {});
      throw error;
    }
    return new PostgresStore(pool, notices, options);
  }

  createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    return this.files.createFile(record);
  }

  getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    return this.files.getFile(owner, id);
  }

  listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    return this.files.listFiles(owner, page);
  }

  deleteFile(owner: string, id: string): Promise<boolean> {
    return this.files.deleteFile(owner, id);
  }

  createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    return this.threads.createThread(record);
  }

  getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    return this.threads.getThread(owner, id);
  }

  listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    return this.threads.listThreads(owner, page);
  }

  updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    return this.threads.updateThread(owner, id, change);
  }

  deleteThread(owner: string, id: string): Promise<boolean> {
    return this.threads.deleteThread(owner, id);
  }

  touchThread(id: string, title?: string): Promise<void> {
    return this.threads.touchThread(id, title);
  }

  staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return this.threads.staleThreads(owner, before);
  }

  addMessage(record: NewMessage): Promise<MessageRecord> {
    return this.threads.addMessage(record);
  }

  listMessages(threadId: string): Promise<MessageRecord[]> {
    return this.threads.listMessages(threadId);
  }

  createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options?: CreateRunOptions,
  ): Promise<RunRecord> {
    return this.runs.createRun(record, options);
  }

  runEvents(runId: string, afterSeq?: number): Promise<StoredEvent[]> {
    return this.runs.runEvents(runId, afterSeq);
  }

  appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    return this.runs.appendEvents(runId, events);
  }

  finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void> {
    return this.runs.finishRun(runId, end);
  }

  getRun(id: string): Promise<RunRecord | undefined> {
    return this.runs.getRun(id);
  }

  listRuns(threadId: string): Promise<RunRecord[]> {
    return this.runs.listRuns(threadId);
  }

  threadEvents(threadId: string): Promise<AgentEvent[]> {
    return this.runs.threadEvents(threadId);
  }

  threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    return this.runs.threadEventsPage(threadId, options);
  }

  markInterruptedRuns(): Promise<string[]> {
    return this.leases.markInterruptedRuns();
  }

  runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    return this.leases.runningRuns(threadIds);
  }

  renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    return this.leases.renewLeases(replica, ttlMs);
  }

  requestCancel(runId: string): Promise<boolean> {
    return this.leases.requestCancel(runId);
  }

  recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    return this.owners.recordWorkspaceBytes(threadId, bytes);
  }

  usage(owner: string): Promise<OwnerUsage> {
    return this.owners.usage(owner);
  }

  stats(owner: string): Promise<ThreadStats> {
    return this.owners.stats(owner);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.notices.close();
    await this.pool.end().catch(() => {});
  }
}
