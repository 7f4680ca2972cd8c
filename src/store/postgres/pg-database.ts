import pg from 'pg';
import type { Row } from '../rows.ts';
import type { Page } from '../store.ts';

/** 64-bit integers (counts, sums, times in ms) as numbers: every value Analyst stores fits in 2^53. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
export const PG_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Newest first, strictly before the cursor record ($2 = its created_at, $3 = its id). */
export const AFTER_CURSOR = '($2::bigint IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3))';

/**
 * How the PostgreSQL store's parts reach the database: queries on the pool, transactions on
 * one connection, the bindings of newest-first pages, and the clock for record times.
 */
export class PgDatabase {
  constructor(
    readonly pool: pg.Pool,
    /** Clock for record times, in ms since the epoch (leases use the database's clock). */
    readonly now: () => number,
  ) {}

  async rows(sql: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, values)).rows as Row[];
  }

  async one(sql: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(sql, values))[0];
  }

  /** Runs `work` in one transaction on one connection. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Values $1–$4 of a newest-first page (AFTER_CURSOR): owner, the cursor record's time and id, the limit. */
  async cursor(table: 'files' | 'threads', owner: string, page: Page): Promise<unknown[]> {
    const row = page.after
      ? await this.one(`SELECT created_at, id FROM ${table} WHERE id = $1 AND owner = $2`, [
          page.after,
          owner,
        ])
      : undefined;
    return [owner, row?.created_at ?? null, row?.id ?? null, page.limit];
  }
}
