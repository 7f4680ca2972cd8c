import { leaseRenewalOf, type Row, runningRunsOf } from '../rows.ts';
import { INTERRUPTED_REASON } from '../run-errors.ts';
import type { LeaseRenewal } from '../store.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/**
 * Who executes the running runs: leases on this process's clock, runs whose executor is gone
 * (a crashed server) marked interrupted, cancel requests kept for the executor to see.
 */
export class SqliteRunLeases {
  constructor(private readonly db: SqliteDatabase) {}

  async markInterruptedRuns(): Promise<string[]> {
    const now = this.db.now();
    const rows = await this.db.write(
      () =>
        this.db
          .statement(
            `UPDATE runs SET status = 'interrupted', reason = @reason, finished_at = @now
           WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < @now)
           RETURNING id`,
          )
          .all({ reason: INTERRUPTED_REASON, now }) as Row[],
    );
    return rows.map((r) => r.id as string);
  }

  async runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    if (threadIds.length === 0) return new Map();
    const rows = this.db
      .statement(
        "SELECT thread_id, id FROM runs WHERE status = 'running' AND thread_id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(threadIds)) as Row[];
    return runningRunsOf(rows);
  }

  async renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    const expires = this.db.now() + ttlMs;
    const rows = await this.db.write(
      () =>
        this.db
          .statement(
            `UPDATE runs SET lease_expires_at = ? WHERE replica = ? AND status = 'running'
           RETURNING id, cancel_requested`,
          )
          .all(expires, replica) as Row[],
    );
    return leaseRenewalOf(rows);
  }

  async requestCancel(runId: string): Promise<boolean> {
    return this.db.write(
      () =>
        this.db
          .statement("UPDATE runs SET cancel_requested = 1 WHERE id = ? AND status = 'running'")
          .run(runId).changes > 0,
    );
  }
}
