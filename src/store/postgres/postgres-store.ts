import pg from 'pg';
import type { AgentEvent, RunCost } from '../../contract/events.ts';
import { cutEventPage, type EventPage, type EventPageOptions } from '../event-pages.ts';
import { eventOf, fileOf, messageOf, type Row, runOf, storedEventOf, threadOf } from '../rows.ts';
import { INTERRUPTED_REASON, threadBusyError, tooManyRunsError } from '../run-errors.ts';
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
import { migrate } from './migrate.ts';
import { CHANNELS, PgNotices } from './notices.ts';

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

/** 64-bit integers (counts, sums, times in ms) as numbers: every value Analyst stores fits in 2^53. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

const UNIQUE_VIOLATION = '23505';
/** Newest first, strictly before the cursor record ($2 = its created_at, $3 = its id). */
const AFTER_CURSOR = '($2::bigint IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3))';

/**
 * The store for several replicas of one service: PostgreSQL through a connection pool.
 * Migrations run at `open`. Writes that other replicas must notice (events, a run's end,
 * a cancel request, a deleted thread) notify in the same statement, so a notice never
 * arrives before the data it announces is visible.
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly notices: PgNotices;
  private readonly now: () => number;

  private constructor(
    private readonly pool: pg.Pool,
    notices: PgNotices,
    options: PostgresStoreOptions,
  ) {
    this.notices = notices;
    this.now = options.now ?? Date.now;
  }

  /** Connects, migrates to the latest schema and starts listening for notices. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const config: pg.PoolConfig = {
      connectionString: options.url,
      types,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'analyst',
    };
    const pool = new pg.Pool(config);
    pool.on('error', (error) => options.onError?.(error));
    const notices = new PgNotices(
      { connectionString: options.url, types, application_name: 'analyst-notices' },
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

  private async rows(sql: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, values)).rows as Row[];
  }

  private async one(sql: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(sql, values))[0];
  }

  /** Runs `work` in one transaction on one connection. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    const full = { ...record, created_at: this.now() };
    await this.pool.query(
      'INSERT INTO files (id, owner, filename, purpose, bytes, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [full.id, full.owner, full.filename, full.purpose, full.bytes, full.sha256, full.created_at],
    );
    return full;
  }

  async getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    const row = await this.one('SELECT * FROM files WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? fileOf(row) : undefined;
  }

  async listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    const cursor = await this.cursor('files', owner, page);
    const rows = await this.rows(
      `SELECT * FROM files WHERE owner = $1 AND ($5::text IS NULL OR purpose = $5) AND ${AFTER_CURSOR}
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [...cursor, page.purpose ?? null],
    );
    return rows.map(fileOf);
  }

  /** Values $1–$4 of a newest-first page: owner, the cursor record's time and id, the limit. */
  private async cursor(table: 'files' | 'threads', owner: string, page: Page): Promise<unknown[]> {
    const row = page.after
      ? await this.one(`SELECT created_at, id FROM ${table} WHERE id = $1 AND owner = $2`, [
          page.after,
          owner,
        ])
      : undefined;
    return [owner, row?.created_at ?? null, row?.id ?? null, page.limit];
  }

  async deleteFile(owner: string, id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM files WHERE id = $1 AND owner = $2', [id, owner]);
    return (result.rowCount ?? 0) > 0;
  }

  async createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    const at = this.now();
    const full = { ...record, created_at: at, updated_at: at };
    await this.pool.query(
      'INSERT INTO threads (id, owner, workspace, title, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [full.id, full.owner, full.workspace, full.title, JSON.stringify(full.metadata), at, at],
    );
    return full;
  }

  async getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    const row = await this.one('SELECT * FROM threads WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? threadOf(row) : undefined;
  }

  async listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    const query = page.query?.trim();
    const cursor = await this.cursor('threads', owner, page);
    const rows = await this.rows(
      `SELECT * FROM threads WHERE owner = $1 AND ${AFTER_CURSOR}
         AND ($5::text IS NULL OR title ILIKE $5 ESCAPE '\\')
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [...cursor, query ? `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null],
    );
    return rows.map(threadOf);
  }

  async updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    const row = await this.one(
      `UPDATE threads SET
         title = CASE WHEN $3 THEN $4 ELSE title END,
         metadata = COALESCE($5, metadata),
         workspace = COALESCE($6, workspace),
         updated_at = $7
       WHERE id = $1 AND owner = $2 RETURNING *`,
      [
        id,
        owner,
        change.title !== undefined,
        change.title ?? null,
        change.metadata === undefined ? null : JSON.stringify(change.metadata),
        change.workspace ?? null,
        this.now(),
      ],
    );
    return row ? threadOf(row) : undefined;
  }

  async deleteThread(owner: string, id: string): Promise<boolean> {
    const rows = await this.rows(
      `WITH deleted AS (DELETE FROM threads WHERE id = $1 AND owner = $2 RETURNING id)
       SELECT pg_notify('${CHANNELS.thread}', id) FROM deleted`,
      [id, owner],
    );
    return rows.length > 0;
  }

  async touchThread(id: string, title?: string): Promise<void> {
    await this.pool.query('UPDATE threads SET updated_at = $2, title = COALESCE(title, $3) WHERE id = $1', [
      id,
      this.now(),
      title ?? null,
    ]);
  }

  async addMessage(record: NewMessage): Promise<MessageRecord> {
    const full: MessageRecord = { ...record, revises: record.revises ?? null, created_at: this.now() };
    await this.pool.query(
      `INSERT INTO messages (id, thread_id, role, content, file_ids, run_id, revises, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        full.id,
        full.thread_id,
        full.role,
        full.content,
        JSON.stringify(full.file_ids),
        full.run_id,
        full.revises,
        full.created_at,
      ],
    );
    return full;
  }

  async listMessages(threadId: string): Promise<MessageRecord[]> {
    const rows = await this.rows('SELECT * FROM messages WHERE thread_id = $1 ORDER BY seq', [threadId]);
    return rows.map(messageOf);
  }

  async createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options: CreateRunOptions = {},
  ): Promise<RunRecord> {
    const full: RunRecord = {
      ...record,
      status: 'running',
      reason: null,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      cost: null,
      answer: null,
      created_at: this.now(),
      finished_at: null,
    };
    const { lease, maxRunningForOwner } = options;
    const insert = (client: pg.ClientBase | pg.Pool) =>
      client.query(
        `INSERT INTO runs (id, thread_id, model, protocol, status, created_at, replica, lease_expires_at)
         VALUES ($1, $2, $3, $4, 'running', $5, $6, CASE WHEN $7::bigint IS NULL THEN NULL ELSE analyst_now_ms() + $7 END)`,
        [
          full.id,
          full.thread_id,
          full.model,
          full.protocol,
          full.created_at,
          lease?.replica ?? null,
          lease?.ttlMs ?? null,
        ],
      );
    try {
      if (!lease && maxRunningForOwner === undefined) {
        await insert(this.pool);
        return full;
      }
      await this.transaction(async (client) => {
        if (lease) {
          // A run whose replica stopped renewing gives the thread up to the new one.
          await client.query(
            `WITH taken AS (
               UPDATE runs SET status = 'interrupted', reason = $2, finished_at = $3
               WHERE thread_id = $1 AND status = 'running' AND lease_expires_at < analyst_now_ms()
               RETURNING id)
             SELECT pg_notify('${CHANNELS.run}', id) FROM taken`,
            [record.thread_id, INTERRUPTED_REASON, full.created_at],
          );
        }
        if (maxRunningForOwner !== undefined) {
          // One owner's run claims take turns (replicas included), so the count cannot race.
          const { rows } = await client.query(
            `SELECT pg_advisory_xact_lock(hashtextextended('analyst-owner:' || owner, 0)), owner
             FROM threads WHERE id = $1`,
            [record.thread_id],
          );
          const running = await client.query(
            `SELECT COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id
             WHERE t.owner = $1 AND r.status = 'running'`,
            [rows[0]?.owner ?? null],
          );
          if ((running.rows[0]?.n as number) >= maxRunningForOwner)
            throw tooManyRunsError(maxRunningForOwner);
        }
        await insert(client);
      });
      return full;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw threadBusyError(record.thread_id);
      throw error;
    }
  }

  async runEvents(runId: string, afterSeq = -1): Promise<StoredEvent[]> {
    const rows = await this.rows('SELECT seq, body FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [
      runId,
      afterSeq,
    ]);
    return rows.map(storedEventOf);
  }

  async appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    if (events.length === 0) return;
    // One statement: the rows and the notice commit together.
    await this.pool.query(
      `WITH inserted AS (
         INSERT INTO events (run_id, seq, type, body)
         SELECT $1::text, seq, type, body FROM unnest($2::int[], $3::text[], $4::text[]) AS e (seq, type, body)
         RETURNING 1)
       SELECT pg_notify('${CHANNELS.run}', $1::text) FROM (SELECT COUNT(*) FROM inserted) AS done`,
      [
        runId,
        events.map((e) => e.seq),
        events.map((e) => e.event.type),
        events.map((e) => JSON.stringify(e.event)),
      ],
    );
  }

  async finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void> {
    await this.pool.query(
      `WITH finished AS (
         UPDATE runs SET status = $2, reason = $3, usage = $4, answer = $5, finished_at = $6, lease_expires_at = NULL,
           cost = $7
         WHERE id = $1 AND status = 'running' RETURNING id)
       SELECT pg_notify('${CHANNELS.run}', id) FROM finished`,
      [
        runId,
        end.status,
        end.reason,
        JSON.stringify(end.usage),
        end.answer,
        this.now(),
        end.cost ? JSON.stringify(end.cost) : null,
      ],
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = await this.one('SELECT * FROM runs WHERE id = $1', [id]);
    return row ? runOf(row) : undefined;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    return (
      await this.rows('SELECT * FROM runs WHERE thread_id = $1 ORDER BY created_at, id', [threadId])
    ).map(runOf);
  }

  async threadEvents(threadId: string): Promise<AgentEvent[]> {
    const rows = await this.rows(
      `SELECT e.body FROM events e JOIN runs r ON r.id = e.run_id
       WHERE r.thread_id = $1 ORDER BY r.created_at, r.id, e.seq`,
      [threadId],
    );
    return rows.map(eventOf);
  }

  async threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    const rows = await this.rows(
      `SELECT e.run_id, e.seq, e.body FROM events e JOIN runs r ON r.id = e.run_id
       WHERE r.thread_id = $1
         AND ($2::text IS NULL OR (r.created_at, r.id, e.seq) > ((SELECT created_at FROM runs WHERE id = $2), $2, $3))
       ORDER BY r.created_at, r.id, e.seq LIMIT $4`,
      [threadId, options.after?.runId ?? null, options.after?.seq ?? 0, options.limit + 1],
    );
    return cutEventPage(rows, options);
  }

  async markInterruptedRuns(): Promise<string[]> {
    const rows = await this.rows(
      `WITH interrupted AS (
         UPDATE runs SET status = 'interrupted', reason = $1, finished_at = $2
         WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < analyst_now_ms())
         RETURNING id)
       SELECT id, pg_notify('${CHANNELS.run}', id) FROM interrupted`,
      [INTERRUPTED_REASON, this.now()],
    );
    return rows.map((r) => r.id as string);
  }

  async runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    if (threadIds.length === 0) return new Map();
    const rows = await this.rows(
      "SELECT thread_id, id FROM runs WHERE status = 'running' AND thread_id = ANY($1::text[])",
      [threadIds],
    );
    return new Map(rows.map((r) => [r.thread_id as string, r.id as string]));
  }

  async renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    const rows = await this.rows(
      `UPDATE runs SET lease_expires_at = analyst_now_ms() + $2
       WHERE replica = $1 AND status = 'running' RETURNING id, cancel_requested`,
      [replica, ttlMs],
    );
    return {
      held: rows.map((r) => r.id as string),
      cancelRequested: rows.filter((r) => r.cancel_requested).map((r) => r.id as string),
    };
  }

  async requestCancel(runId: string): Promise<boolean> {
    const rows = await this.rows(
      `WITH asked AS (
         UPDATE runs SET cancel_requested = true WHERE id = $1 AND status = 'running' RETURNING id)
       SELECT pg_notify('${CHANNELS.cancel}', id) FROM asked`,
      [runId],
    );
    return rows.length > 0;
  }

  async recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    await this.pool.query('UPDATE threads SET workspace_bytes = $2 WHERE id = $1', [threadId, bytes]);
  }

  async usage(owner: string): Promise<OwnerUsage> {
    const row = await this.one(
      `SELECT
         (SELECT COUNT(*) FROM threads WHERE owner = $1) AS threads,
         (SELECT COALESCE(SUM(workspace_bytes), 0) FROM threads WHERE owner = $1) AS workspace_bytes,
         (SELECT COALESCE(SUM(bytes), 0) FROM files WHERE owner = $1) AS file_bytes,
         (SELECT COUNT(*) FROM runs r JOIN threads t ON t.id = r.thread_id
           WHERE t.owner = $1 AND r.status = 'running') AS running`,
      [owner],
    );
    return {
      threads: row?.threads as number,
      fileBytes: row?.file_bytes as number,
      workspaceBytes: row?.workspace_bytes as number,
      runningRuns: row?.running as number,
    };
  }

  async stats(owner: string): Promise<ThreadStats> {
    const row = await this.one(
      `SELECT
         (SELECT COUNT(*) FROM threads WHERE owner = $1) AS threads,
         (SELECT COUNT(*) FROM messages m JOIN threads t ON t.id = m.thread_id WHERE t.owner = $1) AS messages,
         (SELECT COUNT(*) FROM files WHERE owner = $1) AS files,
         (SELECT COALESCE(SUM(bytes), 0) FROM files WHERE owner = $1) AS file_bytes`,
      [owner],
    );
    const runs = await this.rows(
      `SELECT r.status, COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id
       WHERE t.owner = $1 GROUP BY r.status`,
      [owner],
    );
    return {
      threads: row?.threads as number,
      messages: row?.messages as number,
      runs: Object.fromEntries(runs.map((r) => [r.status as string, r.n as number])),
      files: row?.files as number,
      file_bytes: row?.file_bytes as number,
    };
  }

  async staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return (
      await this.rows('SELECT * FROM threads WHERE owner = $1 AND updated_at < $2 ORDER BY updated_at', [
        owner,
        before,
      ])
    ).map(threadOf);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.notices.close();
    await this.pool.end().catch(() => {});
  }
}
