import type pg from 'pg';
import type { AgentEvent, RunCost } from '../../contract/events.ts';
import { cursorOf, type EventPage, type EventPageOptions, pageLength } from '../event-pages.ts';
import { eventOf, newRunOf, runOf, storedEventOf } from '../rows.ts';
import { INTERRUPTED_REASON, threadBusyError, tooManyRunsError } from '../run-errors.ts';
import type { CreateRunOptions, RunRecord, StoredEvent } from '../store.ts';
import { CHANNELS } from './notices.ts';
import type { PgDatabase } from './pg-database.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * Runs and their events in PostgreSQL. New events and a run's end notify other replicas in
 * the same statement that writes them.
 */
export class PgRuns {
  constructor(private readonly db: PgDatabase) {}

  async createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options: CreateRunOptions = {},
  ): Promise<RunRecord> {
    const full = newRunOf(record, this.db.now());
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
        await insert(this.db.pool);
        return full;
      }
      await this.db.transaction(async (client) => {
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
    const rows = await this.db.rows(
      'SELECT seq, body FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq',
      [runId, afterSeq],
    );
    return rows.map(storedEventOf);
  }

  async appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    if (events.length === 0) return;
    // One statement: the rows and the notice commit together.
    await this.db.pool.query(
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
    await this.db.pool.query(
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
        this.db.now(),
        end.cost ? JSON.stringify(end.cost) : null,
      ],
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = await this.db.one('SELECT * FROM runs WHERE id = $1', [id]);
    return row ? runOf(row) : undefined;
  }

  async listRuns(threadId: string): Promise<RunRecord[]> {
    return (
      await this.db.rows('SELECT * FROM runs WHERE thread_id = $1 ORDER BY created_at, id', [threadId])
    ).map(runOf);
  }

  async threadEvents(threadId: string): Promise<AgentEvent[]> {
    const rows = await this.db.rows(
      `SELECT e.body FROM events e JOIN runs r ON r.id = e.run_id
       WHERE r.thread_id = $1 ORDER BY r.created_at, r.id, e.seq`,
      [threadId],
    );
    return rows.map(eventOf);
  }

  async threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    // Sizes first (in bytes, never fewer than the text's characters), then the bodies of the
    // page only: what is fetched is bounded by the page, whatever one event holds.
    const sized = await this.db.rows(
      `SELECT e.run_id, e.seq, octet_length(e.body) AS size FROM events e JOIN runs r ON r.id = e.run_id
       WHERE r.thread_id = $1
         AND ($2::text IS NULL OR (r.created_at, r.id, e.seq) > ((SELECT created_at FROM runs WHERE id = $2 AND thread_id = $1), $2, $3))
       ORDER BY r.created_at, r.id, e.seq LIMIT $4`,
      [threadId, options.after?.runId ?? null, options.after?.seq ?? 0, options.limit + 1],
    );
    const { count, hasMore } = pageLength(
      sized.map((row) => Number(row.size)),
      options,
    );
    const keys = sized.slice(0, count);
    const rows = await this.db.rows(
      `SELECT e.body FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS k(run_id, seq, n)
       JOIN events e ON e.run_id = k.run_id AND e.seq = k.seq ORDER BY k.n`,
      [keys.map((row) => row.run_id), keys.map((row) => Number(row.seq))],
    );
    // The thread was deleted between the two reads.
    if (rows.length < keys.length) return { bodies: [], last: undefined, hasMore: false };
    return { bodies: rows.map((row) => row.body as string), last: cursorOf(keys.at(-1)), hasMore };
  }
}
