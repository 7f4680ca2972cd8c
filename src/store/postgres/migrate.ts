import type pg from 'pg';
import { MIGRATIONS } from './schema.ts';

/** Any constant: the advisory lock that makes replicas starting together migrate one at a time. */
const MIGRATION_LOCK = 7_341_882_001;

/**
 * Brings the database to the latest schema: each migration runs once, in its own
 * transaction, and is recorded in `analyst_schema`. A database newer than this code is
 * refused rather than used.
 */
export async function migrate(
  client: pg.ClientBase,
  migrations: readonly string[] = MIGRATIONS,
): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS analyst_schema (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)',
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT MAX(version) AS version FROM analyst_schema',
    );
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `the database is at schema version ${current}, newer than this Analyst (${migrations.length}): upgrade Analyst`,
      );
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      await client.query('BEGIN');
      try {
        await client.query(migrations[version - 1]!);
        await client.query('INSERT INTO analyst_schema (version, applied_at) VALUES ($1, $2)', [
          version,
          Date.now(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }
    return migrations.length;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}
