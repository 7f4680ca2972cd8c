import { ComposedStore } from '../composed-store.ts';
import type { Store } from '../store.ts';
import { SqliteFiles } from './files.ts';
import { SqliteRunLeases } from './run-leases.ts';
import { SqliteRuns } from './runs.ts';
import { SqliteDatabase } from './sqlite-database.ts';
import { SqliteThreads } from './threads.ts';
import { SqliteUsage } from './usage.ts';

/**
 * The embedded store: one SQLite database in WAL mode. better-sqlite3 is synchronous; each
 * statement is short, and a committed write survives a killed process (WAL, NORMAL sync).
 * Each part of the store (files, threads, runs, leases, usage) is its own file beside this
 * one; this class opens, closes and composes them.
 */
export class SqliteStore extends ComposedStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: SqliteDatabase;

  constructor(path: string, now: () => number = Date.now) {
    const db = new SqliteDatabase(path, now);
    super({
      files: new SqliteFiles(db),
      threads: new SqliteThreads(db),
      runs: new SqliteRuns(db),
      leases: new SqliteRunLeases(db),
      owners: new SqliteUsage(db),
    });
    this.db = db;
  }

  async ping(): Promise<void> {
    this.db.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
