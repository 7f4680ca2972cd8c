import { containsPattern, messageOf, threadOf } from '../rows.ts';
import type { MessageRecord, NewMessage, Page, ThreadRecord } from '../store.ts';
import { CHANNELS } from './notices.ts';
import { AFTER_CURSOR, type PgDatabase } from './pg-database.ts';

/** Threads and their messages in PostgreSQL; a deleted thread is announced to every replica. */
export class PgThreads {
  constructor(private readonly db: PgDatabase) {}

  async createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    const at = this.db.now();
    const full = { ...record, created_at: at, updated_at: at };
    await this.db.pool.query(
      'INSERT INTO threads (id, owner, workspace, title, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [full.id, full.owner, full.workspace, full.title, JSON.stringify(full.metadata), at, at],
    );
    return full;
  }

  async getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    const row = await this.db.one('SELECT * FROM threads WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? threadOf(row) : undefined;
  }

  async listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    const query = page.query?.trim();
    const cursor = await this.db.cursor('threads', owner, page);
    const rows = await this.db.rows(
      `SELECT * FROM threads WHERE owner = $1 AND ${AFTER_CURSOR}
         AND ($5::text IS NULL OR title ILIKE $5 ESCAPE '\\')
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [...cursor, containsPattern(query)],
    );
    return rows.map(threadOf);
  }

  async updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    const row = await this.db.one(
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
        this.db.now(),
      ],
    );
    return row ? threadOf(row) : undefined;
  }

  async deleteThread(owner: string, id: string): Promise<boolean> {
    const rows = await this.db.rows(
      `WITH deleted AS (DELETE FROM threads WHERE id = $1 AND owner = $2 RETURNING id)
       SELECT pg_notify('${CHANNELS.thread}', id) FROM deleted`,
      [id, owner],
    );
    return rows.length > 0;
  }

  async touchThread(id: string, title?: string): Promise<void> {
    await this.db.pool.query(
      'UPDATE threads SET updated_at = $2, title = COALESCE(title, $3) WHERE id = $1',
      [id, this.db.now(), title ?? null],
    );
  }

  async staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return (
      await this.db.rows('SELECT * FROM threads WHERE owner = $1 AND updated_at < $2 ORDER BY updated_at', [
        owner,
        before,
      ])
    ).map(threadOf);
  }

  async addMessage(record: NewMessage): Promise<MessageRecord> {
    const full: MessageRecord = { ...record, revises: record.revises ?? null, created_at: this.db.now() };
    await this.db.pool.query(
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
    const rows = await this.db.rows('SELECT * FROM messages WHERE thread_id = $1 ORDER BY seq', [threadId]);
    return rows.map(messageOf);
  }
}
