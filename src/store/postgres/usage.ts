import { runCountsOf } from '../rows.ts';
import type { OwnerUsage, ThreadStats } from '../store.ts';
import type { PgDatabase } from './pg-database.ts';

/** What an owner (an API key) holds and runs, in PostgreSQL: for its limits and its stats page. */
export class PgUsage {
  constructor(private readonly db: PgDatabase) {}

  async recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    await this.db.pool.query('UPDATE threads SET workspace_bytes = $2 WHERE id = $1', [threadId, bytes]);
  }

  async usage(owner: string): Promise<OwnerUsage> {
    const row = await this.db.one(
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
    const row = await this.db.one(
      `SELECT
         (SELECT COUNT(*) FROM threads WHERE owner = $1) AS threads,
         (SELECT COUNT(*) FROM messages m JOIN threads t ON t.id = m.thread_id WHERE t.owner = $1) AS messages,
         (SELECT COUNT(*) FROM files WHERE owner = $1) AS files,
         (SELECT COALESCE(SUM(bytes), 0) FROM files WHERE owner = $1) AS file_bytes`,
      [owner],
    );
    const runs = await this.db.rows(
      `SELECT r.status, COUNT(*) AS n FROM runs r JOIN threads t ON t.id = r.thread_id
       WHERE t.owner = $1 GROUP BY r.status`,
      [owner],
    );
    return {
      threads: row?.threads as number,
      messages: row?.messages as number,
      runs: runCountsOf(runs),
      files: row?.files as number,
      file_bytes: row?.file_bytes as number,
    };
  }
}
