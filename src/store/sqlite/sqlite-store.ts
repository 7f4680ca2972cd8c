import Database from 'better-sqlite3';
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
import { CoalescedWrites } from './coalesced-writes.ts';
import { MIGRATIONS } from './schema.ts';

/** Newest first, strictly before the cursor record (ties on time broken by id). */
const AFTER_CURSOR = '(@at IS NULL OR created_at < @at OR (created_at = @at AND id < @id))';

/**
 * The embedded store: one SQLite database in WAL mode. better-sqlite3 is synchronous; each
 * statement is short, and a committed write survives a killed process (WAL, NORMAL sync).
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Every write of one turn in one transaction (see CoalescedWrites). */
  private readonly writes: CoalescedWrites;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
    this.writes = new CoalescedWrites(this.db);
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    for (let index = version; index < MIGRATIONS.length; index++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[index]!);
        this.db.pragma(`user_version = ${index + 1}`);
      })();
    }
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    const full = { ...record, created_at: this.now() };
    return this.writes.write(() => {
      this.statement(
        'INSERT INTO files (id, owner, filename, purpose, bytes, sha256, created_at) VALUES (@id, @owner, @filename, @purpose, @bytes, @sha256, @created_at)',
      ).run(full);
      return full;
    });
  }

  async getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    const row = this.statement('SELECT * FROM files WHERE id = ? AND owner = ?').get(id, owner) as
      | Row
      | undefined;
    return row ? fileOf(row) : undefined;
  }

  async listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    return this.statement(
      `SELECT * FROM files WHERE owner = @owner AND (@purpose IS NULL OR purpose = @purpose) AND ${AFTER_CURSOR}
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    )
      .all({ ...this.cursor('files', owner, page), purpose: page.purpose ?? null })
      .map((row) => fileOf(row as Row));
  }

  /** Bindings for newest-first pages: `after` names the last record of the previous page. */
  private cursor(table: 'files' | 'threads', owner: string, page: Page) {
    const row = page.after
      ? (this.statement(`SELECT created_at, id FROM ${table} WHERE id = ? AND owner = ?`).get(
          page.after,
          owner,
        ) as Row | undefined)
      : undefined;
    return { owner, at: row?.created_at ?? null, id: row?.id ?? null, limit: page.limit };
  }

  async deleteFile(owner: string, id: string): Promise<boolean> {
    return this.writes.write(
      () => this.statement('DELETE FROM files WHERE id = ? AND owner = ?').run(id, owner).changes > 0,
    );
  }

  async createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    const at = this.now();
    const full = { ...record, created_at: at, updated_at: at };
    return this.writes.write(() => {
      this.statement(
        'INSERT INTO threads (id, owner, workspace, title, metadata, created_at, updated_at) VALUES (@id, @owner, @workspace, @title, @metadata, @created_at, @updated_at)',
      ).run({ ...full, metadata: JSON.stringify(full.metadata) });
      return full;
    });
  }

  async getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    return this.readThread(owner, id);
  }

  private readThread(owner: string, id: string): ThreadRecord | undefined {
    const row = this.statement('SELECT * FROM threads WHERE id = ? AND owner = ?').get(id, owner) as
      | Row
      | undefined;
    return row ? threadOf(row) : undefined;
  }

  async listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    const query = page.query?.trim();
    const rows = this.statement(
      `SELECT * FROM threads WHERE owner = @owner AND ${AFTER_CURSOR}
         AND (@pattern IS NULL OR title LIKE @pattern ESCAPE '\\')
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
    ).all({
      ...this.cursor('threads', owner, page),
      pattern: query ? `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
    }) as Row[];
    return rows.map(threadOf);
  }

  async updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    // Read and written in one step, after the writes before it: two changes never undo each other.
    return this.writes.write(() => {
      const current = this.readThread(owner, id);
      if (!current) return undefined;
      const next: ThreadRecord = {
        ...current,
        ...(change.title !== undefined ? { title: change.title } : {}),
        ...(change.metadata !== undefined ? { metadata: change.metadata } : {}),
        ...(change.workspace !== undefined ? { workspace: change.workspace } : {}),
        updated_at: this.now(),
      };
      this.statement(
        'UPDATE threads SET title = @title, metadata = @metadata, workspace = @workspace, updated_at = @updated_at WHERE id = @id AND owner = @owner',
      ).run({ ...next, metadata: JSON.stringify(next.metadata) });
      return next;
    });
  }

  async deleteThread(owner: string, id: string): Promise<boolean> {
    return this.writes.write(
      () => this.statement('DELETE FROM threads WHERE id = ? AND owner = ?').run(id, owner).changes > 0,
    );
  }

  async touchThread(id: string, title?: string): Promise<void> {
    const at = this.now();
    await this.writes.write(() =>
      this.statement('UPDATE threads SET updated_at = ?, title = COALESCE(title, ?) WHERE id = ?').run(
        at,
        title ?? null,
        id,
      ),
    );
  }

  async addMessage(record: NewMessage): Promise<MessageRecord> {
    const full: MessageRecord = { ...record, revises: record.revises ?? null, created_at: this.now() };
    return this.writes.write(() => {
      this.statement(
        `INSERT INTO messages (id, thread_id, role, content, file_ids, run_id, revises, created_at, seq)
         VALUES (@id, @thread_id, @role, @content, @file_ids, @run_id, @revises, @created_at,
                 (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = @thread_id))`,
      ).run({ ...full, file_ids: JSON.stringify(full.file_ids) });
      return full;
    });
  }

  async listMessages(threadId: string): Promise<MessageRecord[]> {
    const rows = this.statement('SELECT * FROM messages WHERE thread_id = ? ORDER BY seq').all(
      threadId,
    ) as Row[];
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
    // The count and the insert are one step, after the writes of this turn before it.
    return this.writes.write(() => {
      if (lease) {
        this.statement(
          `UPDATE runs SET status = 'interrupted', reason = ?, finished_at = ?
           WHERE thread_id = ? AND status = 'running' AND lease_expires_at < ?`,
        ).run(INTERRUPTED_REASON, full.created_at, record.thread_id, full.created_at);
      }
      if (maxRunningForOwner !== undefined) {
        const running = this.statement(
          `SELECT COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id
           WHERE r.status = 'running'
             AND t.owner = (SELECT owner FROM threads WHERE id = ?)`,
        ).get(record.thread_id) as Row;
        if ((running.n as number) >= maxRunningForOwner) throw tooManyRunsError(maxRunningForOwner);
      }
      try {
        this.statement(
          `INSERT INTO runs (id, thread_id, model, protocol, status, created_at, replica, lease_expires_at)
           VALUES (@id, @thread_id, @model, @protocol, 'running', @created_at, @replica, @lease_expires_at)`,
        ).run({
          ...full,
          replica: lease?.replica ?? null,
          lease_expires_at: lease ? full.created_at + lease.ttlMs : null,
        });
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
          throw threadBusyError(record.thread_id);
        throw error;
      }
      return full;
    });
  }

  async runEvents(runId: string, afterSeq = -1): Promise<StoredEvent[]> {
    const rows = this.statement('SELECT seq, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq').all(
      runId,
      afterSeq,
    ) as Row[];
    return rows.map(storedEventOf);
  }

  async appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    await this.writes.write(() => {
      const insert = this.statement('INSERT INTO events (run_id, seq, type, body) VALUES (?, ?, ?, ?)');
      for (const { seq, event } of events) insert.run(runId, seq, event.type, JSON.stringify(event));
    });
  }

  async finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void> {
    const at = this.now();
    await this.writes.write(() =>
      this.statement(
        `UPDATE runs SET status = ?, reason = ?, usage = ?, cost = ?, answer = ?, finished_at = ?, lease_expires_at = NULL
         WHERE id = ? AND status = 'running'`,
      ).run(
        end.status,
        end.reason,
        JSON.stringify(end.usage),
        end.cost ? JSON.stringify(end.cost) : null,
        end.answer,
        at,
        runId,
      ),
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = this.statement('SELECT * FROM runs WHERE id = ?').get(id) as Row | undefined;
    return row ? runOf(row) : undefined;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    return (
      this.statement('SELECT * FROM runs WHERE thread_id = ? ORDER BY created_at, id').all(threadId) as Row[]
    ).map(runOf);
  }

  async threadEvents(threadId: string): Promise<AgentEvent[]> {
    const rows = this.statement(
      'SELECT e.body FROM events e JOIN runs r ON r.id = e.run_id WHERE r.thread_id = ? ORDER BY r.created_at, r.id, e.seq',
    ).all(threadId) as Row[];
    return rows.map(eventOf);
  }

  async threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    const statement = this.statement(
      `SELECT e.run_id, e.seq, e.body FROM events e JOIN runs r ON r.id = e.run_id
       WHERE r.thread_id = @threadId
         AND (@afterRun IS NULL OR (r.created_at, r.id, e.seq) > ((SELECT created_at FROM runs WHERE id = @afterRun), @afterRun, @afterSeq))
       ORDER BY r.created_at, r.id, e.seq LIMIT @rows`,
    );
    // Row by row, stopping one row past the page: reading all `limit` rows of large events
    // at once would be the unbounded synchronous step the page exists to avoid.
    const rows: Row[] = [];
    let chars = 0;
    for (const row of statement.iterate({
      threadId,
      afterRun: options.after?.runId ?? null,
      afterSeq: options.after?.seq ?? 0,
      rows: options.limit + 1,
    }) as Iterable<Row>) {
      rows.push(row);
      chars += (row.body as string).length;
      if (chars > options.maxChars) break;
    }
    return cutEventPage(rows, options);
  }

  async markInterruptedRuns(): Promise<string[]> {
    const now = this.now();
    const rows = await this.writes.write(
      () =>
        this.statement(
          `UPDATE runs SET status = 'interrupted', reason = @reason, finished_at = @now
           WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < @now)
           RETURNING id`,
        ).all({ reason: INTERRUPTED_REASON, now }) as Row[],
    );
    return rows.map((r) => r.id as string);
  }

  async runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    if (threadIds.length === 0) return new Map();
    const rows = this.statement(
      "SELECT thread_id, id FROM runs WHERE status = 'running' AND thread_id IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(threadIds)) as Row[];
    return new Map(rows.map((r) => [r.thread_id as string, r.id as string]));
  }

  async renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    const expires = this.now() + ttlMs;
    const rows = await this.writes.write(
      () =>
        this.statement(
          `UPDATE runs SET lease_expires_at = ? WHERE replica = ? AND status = 'running'
           RETURNING id, cancel_requested`,
        ).all(expires, replica) as Row[],
    );
    return {
      held: rows.map((r) => r.id as string),
      cancelRequested: rows.filter((r) => r.cancel_requested).map((r) => r.id as string),
    };
  }

  async requestCancel(runId: string): Promise<boolean> {
    return this.writes.write(
      () =>
        this.statement("UPDATE runs SET cancel_requested = 1 WHERE id = ? AND status = 'running'").run(runId)
          .changes > 0,
    );
  }

  async recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    await this.writes.write(() =>
      this.statement('UPDATE threads SET workspace_bytes = ? WHERE id = ?').run(bytes, threadId),
    );
  }

  async usage(owner: string): Promise<OwnerUsage> {
    const threads = this.statement(
      'SELECT COUNT(*) AS n, COALESCE(SUM(workspace_bytes), 0) AS bytes FROM threads WHERE owner = ?',
    ).get(owner) as Row;
    const files = this.statement('SELECT COALESCE(SUM(bytes), 0) AS bytes FROM files WHERE owner = ?').get(
      owner,
    ) as Row;
    const runs = this.statement(
      "SELECT COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id WHERE t.owner = ? AND r.status = 'running'",
    ).get(owner) as Row;
    return {
      threads: threads.n as number,
      fileBytes: files.bytes as number,
      workspaceBytes: threads.bytes as number,
      runningRuns: runs.n as number,
    };
  }

  async stats(owner: string): Promise<ThreadStats> {
    const one = (sql: string) => this.statement(sql).get(owner) as Row;
    const runs = this.statement(
      'SELECT r.status, COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id WHERE t.owner = ? GROUP BY r.status',
    ).all(owner) as Row[];
    const files = one('SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM files WHERE owner = ?');
    return {
      threads: one('SELECT COUNT(*) AS n FROM threads WHERE owner = ?').n as number,
      messages: one(
        'SELECT COUNT(*) AS n FROM messages m JOIN threads t ON t.id = m.thread_id WHERE t.owner = ?',
      ).n as number,
      runs: Object.fromEntries(runs.map((r) => [r.status as string, r.n as number])),
      files: files.n as number,
      file_bytes: files.bytes as number,
    };
  }

  async staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return (
      this.statement('SELECT * FROM threads WHERE owner = ? AND updated_at < ? ORDER BY updated_at').all(
        owner,
        before,
      ) as Row[]
    ).map(threadOf);
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.writes.flush();
    this.db.close();
  }
}
