import { fileOf, type Row } from '../rows.ts';
import type { FileRecord, Page } from '../store.ts';
import { AFTER_CURSOR, type SqliteDatabase } from './sqlite-database.ts';

/** Uploaded files' records in SQLite (their bytes live elsewhere). */
export class SqliteFiles {
  constructor(private readonly db: SqliteDatabase) {}

  async createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    const full = { ...record, created_at: this.db.now() };
    return this.db.write(() => {
      this.db
        .statement(
          'INSERT INTO files (id, owner, filename, purpose, bytes, sha256, created_at) VALUES (@id, @owner, @filename, @purpose, @bytes, @sha256, @created_at)',
        )
        .run(full);
      return full;
    });
  }

  async getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    const row = this.db.statement('SELECT * FROM files WHERE id = ? AND owner = ?').get(id, owner) as
      | Row
      | undefined;
    return row ? fileOf(row) : undefined;
  }

  async listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    return this.db
      .statement(
        `SELECT * FROM files WHERE owner = @owner AND (@purpose IS NULL OR purpose = @purpose) AND ${AFTER_CURSOR}
       ORDER BY created_at DESC, id DESC LIMIT @limit`,
      )
      .all({ ...this.db.cursor('files', owner, page), purpose: page.purpose ?? null })
      .map((row) => fileOf(row as Row));
  }

  async deleteFile(owner: string, id: string): Promise<boolean> {
    return this.db.write(
      () => this.db.statement('DELETE FROM files WHERE id = ? AND owner = ?').run(id, owner).changes > 0,
    );
  }
}
