import { fileOf } from '../rows.ts';
import type { FileRecord, Page } from '../store.ts';
import { AFTER_CURSOR, type PgDatabase } from './pg-database.ts';

/** Uploaded files' records in PostgreSQL (their bytes live elsewhere). */
export class PgFiles {
  constructor(private readonly db: PgDatabase) {}

  async createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    const full = { ...record, created_at: this.db.now() };
    await this.db.pool.query(
      'INSERT INTO files (id, owner, filename, purpose, bytes, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [full.id, full.owner, full.filename, full.purpose, full.bytes, full.sha256, full.created_at],
    );
    return full;
  }

  async getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    const row = await this.db.one('SELECT * FROM files WHERE id = $1 AND owner = $2', [id, owner]);
    return row ? fileOf(row) : undefined;
  }

  async listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    const cursor = await this.db.cursor('files', owner, page);
    const rows = await this.db.rows(
      `SELECT * FROM files WHERE owner = $1 AND ($5::text IS NULL OR purpose = $5) AND ${AFTER_CURSOR}
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [...cursor, page.purpose ?? null],
    );
    return rows.map(fileOf);
  }

  async deleteFile(owner: string, id: string): Promise<boolean> {
    const result = await this.db.pool.query('DELETE FROM files WHERE id = $1 AND owner = $2', [id, owner]);
    return (result.rowCount ?? 0) > 0;
  }
}
