import pg from 'pg';
import { ComposedStore } from '../composed-store.ts';
import type { Store } from '../store.ts';
import { PgFiles } from './files.ts';
import { migrate } from './migrate.ts';
import { PgNotices } from './notices.ts';
import { PG_TYPES, PgDatabase } from './pg-database.ts';
import { PgRunLeases } from './run-leases.ts';
import { PgRuns } from './runs.ts';
import { PgThreads } from './threads.ts';
import { PgUsage } from './usage.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (ANALYST_DATABASE_URL). */
  url: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** Clock for record times, in ms since the epoch (leases use the database's clock). */
  now?: () => number;
  /** Background connection failures (an idle pooled connection or the LISTEN one). */
  onError?: (error: unknown) => void;
}

/**
 * The store for several replicas of one service: PostgreSQL through a connection pool.
 * Migrations run at `open`. Writes that other replicas must notice (events, a run's end,
 * a cancel request, a deleted thread) notify in the same statement, so a notice never
 * arrives before the data it announces is visible. Each part of the store (files, threads,
 * runs, leases, usage) is its own file beside this one; this class opens, closes and
 * composes them.
 */
export class PostgresStore extends ComposedStore implements Store {
  readonly kind = 'postgres';
  readonly notices: PgNotices;
  private readonly pool: pg.Pool;

  private constructor(pool: pg.Pool, notices: PgNotices, options: PostgresStoreOptions) {
    const db = new PgDatabase(pool, options.now ?? Date.now);
    super({
      files: new PgFiles(db),
      threads: new PgThreads(db),
      runs: new PgRuns(db),
      leases: new PgRunLeases(db),
      owners: new PgUsage(db),
    });
    this.pool = pool;
    this.notices = notices;
  }

  /** Connects, migrates to the latest schema and starts listening for notices. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const config: pg.PoolConfig = {
      connectionString: options.url,
      types: PG_TYPES,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'analyst',
    };
    const pool = new pg.Pool(config);
    pool.on('error', (error) => options.onError?.(error));
    const notices = new PgNotices(
      { connectionString: options.url, types: PG_TYPES, application_name: 'analyst-notices' },
      { onError: options.onError },
    );
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
      await notices.start();
    } catch (error) {
      await notices.close();
      await pool.end().catch(() => {});
      throw error;
    }
    return new PostgresStore(pool, notices, options);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.notices.close();
    await this.pool.end().catch(() => {});
  }
}
