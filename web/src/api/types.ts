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
  status: string;
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

export interface Preview {
  path: string;
  kind: 'table' | 'text' | 'image' | 'pdf' | 'json' | 'binary';
  columns: Array<{ name: string; type: string }>;
  rows: Array<Array<string | number | boolean | null>>;
  offset: number;
  limit: number;
  total_rows: number | null;
  /** True when `total_rows` is an estimate (a big CSV or text file, not scanned whole). */
  total_rows_estimated?: true;
  sheets?: string[];
  sheet?: string;
  tables?: string[];
  table?: string;
  truncated?: boolean;
  bytes: number;
}

export interface List<T> {
  data: T[];
  has_more?: boolean;
}
