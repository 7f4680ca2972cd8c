import { leaseRenewalOf, runningRunsOf } from '../rows.ts';
import { INTERRUPTED_REASON } from '../run-errors.ts';
import type { LeaseRenewal } from '../store.ts';
import { CHANNELS } from './notices.ts';
import type { PgDatabase } from './pg-database.ts';

/**
 * Who executes the running runs, across replicas: leases renewed on the database's clock, runs
 * whose executor is gone marked interrupted, cancel requests passed to the executor.
 */
export class PgRunLeases {
  constructor(private readonly db: PgDatabase) {}

  async markInterruptedRuns(): Promise<string[]> {
    const rows = await this.db.rows(
      `WITH interrupted AS (
         UPDATE runs SET status = 'interrupted', reason = $1, finished_at = $2
         WHERE status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < analyst_now_ms())
         RETURNING id)
       SELECT id, pg_notify('${CHANNELS.run}', id) FROM interrupted`,
      [INTERRUPTED_REASON, this.db.now()],
    );
    return rows.map((r) => r.id as string);
  }

  async runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    if (threadIds.length === 0) return new Map();
    const rows = await this.db.rows(
      "SELECT thread_id, id FROM runs WHERE status = 'running' AND thread_id = ANY($1::text[])",
      [threadIds],
    );
    return runningRunsOf(rows);
  }

  async renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    const rows = await this.db.rows(
      `UPDATE runs SET lease_expires_at = analyst_now_ms() + $2
       WHERE replica = $1 AND status = 'running' RETURNING id, cancel_requested`,
      [replica, ttlMs],
    );
    return leaseRenewalOf(rows);
  }

  async requestCancel(runId: string): Promise<boolean> {
    const rows = await this.db.rows(
      `WITH asked AS (
         UPDATE runs SET cancel_requested = true WHERE id = $1 AND status = 'running' RETURNING id)
       SELECT pg_notify('${CHANNELS.cancel}', id) FROM asked`,
      [runId],
    );
    return rows.length > 0;
  }
}
