import Database from 'better-sqlite3';
import type { Row } from '../rows.ts';
import type { Page } from '../store.ts';
import { CoalescedWrites } from './coalesced-writes.ts';
import { MIGRATIONS } from './schema.ts';

/** Newest first, strictly before the cursor record (ties on time broken by id); bind with `cursor`. */
export const AFTER_CURSOR = '(@at IS NULL OR created_at < @at OR (created_at = @at AND id < @id))';

/**
 * How the SQLite store's parts reach the database: one connection in WAL mode, migrated at
 * open, statements prepared once, every write through CoalescedWrites, and the clock for
 * record times.
 */
export class SqliteDatabase {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Every write of one turn in one transaction (see CoalescedWrites). */
  private readonly writes: CoalescedWrites;

  constructor(
    path: string,
    readonly now: () => number,
  ) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
    this.writes = new CoalescedWrites(this.db);
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    for (let index = version; index < MIGRATIONS.length; index++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[index]!);
        this.db.pragma(`user_version = ${index + 1}`);
      })();
    }
  }

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `write` in this turn's transaction; resolves with its result once that is committed. */
  write<T>(write: () => T): Promise<T> {
    return this.writes.write(write);
  }

  /** Bindings for newest-first pages (AFTER_CURSOR): `after` names the last record of the previous page. */
  cursor(table: 'files' | 'threads', owner: string, page: Page) {
    const row = page.after
      ? (this.statement(`SELECT created_at, id FROM ${table} WHERE id = ? AND owner = ?`).get(
          page.after,
          owner,
        ) as Row | undefined)
      : undefined;
    return { owner, at: row?.created_at ?? null, id: row?.id ?? null, limit: page.limit };
  }

  /** Commits the writes still queued and closes the connection; a second call does nothing. */
  close(): void {
    if (!this.db.open) return;
    this.writes.flush();
    this.db.close();
  }
}
