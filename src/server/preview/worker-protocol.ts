import type { PreviewCell, PreviewColumn } from './preview.ts';

/** What the main thread asks the preview worker to parse. */
export interface PreviewJob {
  format: 'xlsx' | 'parquet' | 'json' | 'sqlite';
  /** The file's size; its bytes are asked for by range (`RangeRequest`). */
  bytes: number;
  offset: number;
  limit: number;
  sheet?: string;
  table?: string;
  /** SQLite: the private copy to open. */
  sqlitePath?: string;
}

export interface PreviewJobResult {
  columns: PreviewColumn[];
  rows: PreviewCell[][];
  totalRows: number;
  sheets?: string[];
  sheet?: string;
  tables?: string[];
  table?: string;
  truncated?: boolean;
  /** JSON that is not a list of records comes back as lines. */
  asText?: boolean;
}

export type ToWorker =
  | { type: 'job'; id: number; job: PreviewJob }
  | { type: 'data'; id: number; readId: number; data?: Uint8Array; error?: string };

export type FromWorker =
  | { type: 'read'; id: number; readId: number; start: number; end: number }
  | { type: 'done'; id: number; result: PreviewJobResult }
  | { type: 'failed'; id: number; message: string };

/** Largest range one read may ask for. */
export const MAX_RANGE_BYTES = 8 * 1024 * 1024;
