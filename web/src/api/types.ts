import type { StoredRunStatus } from '../../../src/contract/run-status.ts';

/** Wire shapes of the API the UI reads (see src/server/routes). */
export interface Thread {
  id: string;
  object: 'thread';
  created_at: number;
  updated_at: number;
  title: string | null;
  metadata: ThreadMetadata;
  busy: boolean;
  runs?: Run[];
}

export interface ThreadSettings {
  temperature?: number;
  system?: string;
}

export interface ThreadMetadata {
  model?: string;
  settings?: ThreadSettings;
  [key: string]: unknown;
}

export interface Run {
  id: string;
  thread_id: string;
  status: StoredRunStatus;
  model: string;
  protocol: string;
  reason: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface Model {
  id: string;
  protocol: string;
  default: boolean;
  description?: string;
}

export interface WorkspaceFile {
  path: string;
  bytes: number;
  modified_at: number;
  url: string;
}

export type { Preview } from '../../../src/contract/preview.ts';

export interface List<T> {
  data: T[];
  has_more?: boolean;
}

/** A database connection as a key sees it (never its URL): `GET /v1/connections`. */
export interface Connection {
  id: string;
  kind: 'postgres' | 'mysql' | 'sqlite';
  title: string;
  max_rows: number;
  timeout_s: number;
  schemas: string[];
}

export interface ConnectionTable {
  schema: string;
  name: string;
  columns: Array<{ name: string; type: string }>;
  row_estimate: number | null;
}

export interface ConnectionSchema {
  connection_id: string;
  tables: ConnectionTable[];
}

export type ConnectionCell = string | number | boolean | null;

export interface ConnectionQueryResult {
  connection_id: string;
  columns: Array<{ name: string; type: string }>;
  rows: ConnectionCell[][];
  row_count: number;
  /** Which cap stopped the fetching, or false when every row came. */
  truncated: false | 'rows' | 'bytes';
}

export interface ConnectionExtract {
  connection_id: string;
  path: string;
  row_count: number;
  truncated: boolean;
}
