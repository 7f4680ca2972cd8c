import { containsPattern, messageOf, type Row, threadOf } from '../rows.ts';
import type { MessageRecord, NewMessage, Page, ThreadRecord } from '../store.ts';
import { AFTER_CURSOR, type SqliteDatabase } from './sqlite-database.ts';

/** Threads and their messages in SQLite. */
export class SqliteThreads {
  constructor(private readonly db: SqliteDatabase) {}

  async createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    const at = this.db.now();
    const full = { ...record, created_at: at, updated_at: at };
    return this.db.write(() => {
      this.db
        .statement(
          'INSERT INTO threads (id, owner, workspace, title, metadata, created_at, updated_at) VALUES (@id, @owner, @workspace, @title, @metadata, @created_at, @updated_at)',
        )
        .run({ ...full, metadata: JSON.stringify(full.metadata) });
      return full;
    });
  }

  async getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    return this.readThread(owner, id);
  }

  private readThread(owner: string, id: string): ThreadRecord | undefined {
    const row = this.db.statement('SELECT * FROM threads WHERE id = ? AND owner = ?').get(id, owner) as
      | Row
      | undefined;
    return row ? threadOf(row) : undefined;
  }

  async listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    const query = page.query?.trim();
    const rows = this.db
      .statement(
        `SELECT * FROM threads WHERE owner = @owner AND ${AFTER_CURSOR}
         AND (@pattern IS NULL OR title LIKE @pattern ESCAPE '\\')
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
      )
      .all({ ...this.db.cursor('threads', owner, page), pattern: containsPattern(query) }) as Row[];
    return rows.map(threadOf);
  }

  async updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    // Read and written in one step, after the writes before it: two changes never undo each other.
    return this.db.write(() => {
      const current = this.readThread(owner, id);
      if (!current) return undefined;
      const next: ThreadRecord = {
        ...current,
        ...(change.title !== undefined ? { title: change.title } : {}),
        ...(change.metadata !== undefined ? { metadata: change.metadata } : {}),
        ...(change.workspace !== undefined ? { workspace: change.workspace } : {}),
        updated_at: this.db.now(),
      };
      this.db
        .statement(
          'UPDATE threads SET title = @title, metadata = @metadata, workspace = @workspace, updated_at = @updated_at WHERE id = @id AND owner = @owner',
        )
        .run({ ...next, metadata: JSON.stringify(next.metadata) });
      return next;
    });
  }

  async deleteThread(owner: string, id: string): Promise<boolean> {
    return this.db.write(
      () => this.db.statement('DELETE FROM threads WHERE id = ? AND owner = ?').run(id, owner).changes > 0,
    );
  }

  async touchThread(id: string, title?: string): Promise<void> {
    const at = this.db.now();
    await this.db.write(() =>
      this.db
        .statement('UPDATE threads SET updated_at = ?, title = COALESCE(title, ?) WHERE id = ?')
        .run(at, title ?? null, id),
    );
  }

  async staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return (
      this.db
        .statement('SELECT * FROM threads WHERE owner = ? AND updated_at < ? ORDER BY updated_at')
        .all(owner, before) as Row[]
    ).map(threadOf);
  }

  async addMessage(record: NewMessage): Promise<MessageRecord> {
    const full: MessageRecord = { ...record, revises: record.revises ?? null, created_at: this.db.now() };
    return this.db.write(() => {
      this.db
        .statement(
          `INSERT INTO messages (id, thread_id, role, content, file_ids, run_id, revises, created_at, seq)
         VALUES (@id, @thread_id, @role, @content, @file_ids, @run_id, @revises, @created_at,
                 (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = @thread_id))`,
        )
        .run({ ...full, file_ids: JSON.stringify(full.file_ids) });
      return full;
    });
  }

  async listMessages(threadId: string): Promise<MessageRecord[]> {
    const rows = this.db
      .statement('SELECT * FROM messages WHERE thread_id = ? ORDER BY seq')
      .all(threadId) as Row[];
    return rows.map(messageOf);
  }
}
