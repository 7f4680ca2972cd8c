import type { AgentEvent, RunCost } from '../../contract/events.ts';
import { cutEventPage, type EventPage, type EventPageOptions } from '../event-pages.ts';
import { eventOf, newRunOf, type Row, runOf, storedEventOf } from '../rows.ts';
import { INTERRUPTED_REASON, threadBusyError, tooManyRunsError } from '../run-errors.ts';
import type { CreateRunOptions, RunRecord, StoredEvent } from '../store.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/** Runs and their events in SQLite. */
export class SqliteRuns {
  constructor(private readonly db: SqliteDatabase) {}

  async createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options: CreateRunOptions = {},
  ): Promise<RunRecord> {
    const full = newRunOf(record, this.db.now());
    const { lease, maxRunningForOwner } = options;
    // The count and the insert are one step, after the writes of this turn before it.
    return this.db.write(() => {
      if (lease) {
        this.db
          .statement(
            `UPDATE runs SET status = 'interrupted', reason = ?, finished_at = ?
           WHERE thread_id = ? AND status = 'running' AND lease_expires_at < ?`,
          )
          .run(INTERRUPTED_REASON, full.created_at, record.thread_id, full.created_at);
      }
      if (maxRunningForOwner !== undefined) {
        const running = this.db
          .statement(
            `SELECT COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id
           WHERE r.status = 'running'
             AND t.owner = (SELECT owner FROM threads WHERE id = ?)`,
          )
          .get(record.thread_id) as Row;
        if ((running.n as number) >= maxRunningForOwner) throw tooManyRunsError(maxRunningForOwner);
      }
      try {
        this.db
          .statement(
            `INSERT INTO runs (id, thread_id, model, protocol, status, created_at, replica, lease_expires_at)
           VALUES (@id, @thread_id, @model, @protocol, 'running', @created_at, @replica, @lease_expires_at)`,
          )
          .run({
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
    const rows = this.db
      .statement('SELECT seq, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq')
      .all(runId, afterSeq) as Row[];
    return rows.map(storedEventOf);
  }

  async appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    await this.db.write(() => {
      const insert = this.db.statement('INSERT INTO events (run_id, seq, type, body) VALUES (?, ?, ?, ?)');
      for (const { seq, event } of events) insert.run(runId, seq, event.type, JSON.stringify(event));
    });
  }

  async finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void> {
    const at = this.db.now();
    await this.db.write(() =>
      this.db
        .statement(
          `UPDATE runs SET status = ?, reason = ?, usage = ?, cost = ?, answer = ?, finished_at = ?, lease_expires_at = NULL
         WHERE id = ? AND status = 'running'`,
        )
        .run(
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
    const row = this.db.statement('SELECT * FROM runs WHERE id = ?').get(id) as Row | undefined;
    return row ? runOf(row) : undefined;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    return (
      this.db
        .statement('SELECT * FROM runs WHERE thread_id = ? ORDER BY created_at, id')
        .all(threadId) as Row[]
    ).map(runOf);
  }

  async threadEvents(threadId: string): Promise<AgentEvent[]> {
    const rows = this.db
      .statement(
        'SELECT e.body FROM events e JOIN runs r ON r.id = e.run_id WHERE r.thread_id = ? ORDER BY r.created_at, r.id, e.seq',
      )
      .all(threadId) as Row[];
    return rows.map(eventOf);
  }

  async threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    // Run by run, each read by its key from the cursor on, stopping one row past the page: one
    // ORDER BY over the join sorted every event of a run (bodies too) before the first row.
    const rows: Row[] = [];
    let chars = 0;
    const fill = (runId: string, afterSeq: number): boolean => {
      const events = this.db
        .statement('SELECT run_id, seq, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq')
        .iterate(runId, afterSeq) as Iterable<Row>;
      for (const row of events) {
        rows.push(row);
        chars += (row.body as string).length;
        // The row that does not fit tells there is more (the first always fits).
        if (rows.length > options.limit || (rows.length > 1 && chars > options.maxChars)) return true;
      }
      return false;
    };
    let from = { createdAt: Number.MIN_SAFE_INTEGER, runId: '' };
    if (options.after) {
      const run = this.db
        .statement('SELECT created_at FROM runs WHERE id = ? AND thread_id = ?')
        .get(options.after.runId, threadId) as Row | undefined;
      // A cursor from another thread (or a run since deleted) pages nothing.
      if (!run) return cutEventPage([], options);
      if (fill(options.after.runId, options.after.seq)) return cutEventPage(rows, options);
      from = { createdAt: Number(run.created_at), runId: options.after.runId };
    }
    const runs = this.db
      .statement(
        'SELECT id FROM runs WHERE thread_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id',
      )
      .iterate(threadId, from.createdAt, from.runId) as Iterable<Row>;
    for (const run of runs) if (fill(run.id as string, -1)) break;
    return cutEventPage(rows, options);
  }
}
