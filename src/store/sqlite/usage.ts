import { type Row, runCountsOf } from '../rows.ts';
import type { OwnerUsage, ThreadStats } from '../store.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/** What an owner (an API key) holds and runs, in SQLite: for its limits and its stats page. */
export class SqliteUsage {
  constructor(private readonly db: SqliteDatabase) {}

  async recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    await this.db.write(() =>
      this.db.statement('UPDATE threads SET workspace_bytes = ? WHERE id = ?').run(bytes, threadId),
    );
  }

  async usage(owner: string): Promise<OwnerUsage> {
    const threads = this.db
      .statement(
        'SELECT COUNT(*) AS n, COALESCE(SUM(workspace_bytes), 0) AS bytes FROM threads WHERE owner = ?',
      )
      .get(owner) as Row;
    const files = this.db
      .statement('SELECT COALESCE(SUM(bytes), 0) AS bytes FROM files WHERE owner = ?')
      .get(owner) as Row;
    const runs = this.db
      .statement(
        "SELECT COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id WHERE t.owner = ? AND r.status = 'running'",
      )
      .get(owner) as Row;
    return {
      threads: threads.n as number,
      fileBytes: files.bytes as number,
      workspaceBytes: threads.bytes as number,
      runningRuns: runs.n as number,
    };
  }

  async stats(owner: string): Promise<ThreadStats> {
    const one = (sql: string) => this.db.statement(sql).get(owner) as Row;
    const runs = this.db
      .statement(
        'SELECT r.status, COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id WHERE t.owner = ? GROUP BY r.status',
      )
      .all(owner) as Row[];
    const files = one('SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM files WHERE owner = ?');
    return {
      threads: one('SELECT COUNT(*) AS n FROM threads WHERE owner = ?').n as number,
      messages: one(
        'SELECT COUNT(*) AS n FROM messages m JOIN threads t ON t.id = m.thread_id WHERE t.owner = ?',
      ).n as number,
      runs: runCountsOf(runs),
      files: files.n as number,
      file_bytes: files.bytes as number,
    };
  }
}
