import type { AgentEvent, RunStatus, TokenCount } from '../agent/events.ts';

/**
 * What Analyst persists, independent of where (SPEC §6). The embedded default is SQLite
 * (`sqlite/`); the interface is small and synchronous-looking-async so that PostgreSQL can
 * replace it. Every record belongs to an owner (an API key, or `local` in open mode); every
 * read takes the owner, so one key never sees another's records.
 */

export interface FileRecord {
  id: string;
  owner: string;
  filename: string;
  purpose: string;
  bytes: number;
  sha256: string;
  created_at: number;
}

export interface ThreadRecord {
  id: string;
  owner: string;
  /** The thread's workspace (a `WorkspaceStore` id; an absolute path for threads made before workspaces had ids). */
  workspace: string;
  title: string | null;
  metadata: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

export interface MessageRecord {
  id: string;
  thread_id: string;
  role: 'user' | 'assistant';
  content: string;
  file_ids: string[];
  run_id: string | null;
  created_at: number;
}

/** A run's stored state; `interrupted` marks runs a crashed server left unfinished. */
export type StoredRunStatus = 'running' | RunStatus | 'interrupted';

export interface RunRecord {
  id: string;
  thread_id: string;
  model: string;
  protocol: string;
  status: StoredRunStatus;
  reason: string | null;
  usage: TokenCount;
  answer: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface Page {
  limit: number;
  /** Return records created before this id (newest first), for cursor pagination. */
  after?: string;
}

/** One stored event of a run: `seq` counts from 0 within the run. */
export interface StoredEvent {
  seq: number;
  event: AgentEvent;
}

export interface ThreadStats {
  threads: number;
  messages: number;
  runs: Record<string, number>;
  files: number;
  file_bytes: number;
}

export interface Store {
  createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord>;
  getFile(owner: string, id: string): Promise<FileRecord | undefined>;
  listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]>;
  deleteFile(owner: string, id: string): Promise<boolean>;

  createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord>;
  getThread(owner: string, id: string): Promise<ThreadRecord | undefined>;
  /** Newest first; `query` keeps threads whose title contains it (case-insensitive). */
  listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]>;
  deleteThread(owner: string, id: string): Promise<boolean>;
  /** Marks the thread updated now; sets its title if it has none yet. */
  touchThread(id: string, title?: string): Promise<void>;
  /** Renames the thread and/or replaces its metadata; undefined when it is not the owner's. */
  updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined>;

  addMessage(record: Omit<MessageRecord, 'created_at'>): Promise<MessageRecord>;
  listMessages(threadId: string): Promise<MessageRecord[]>;

  createRun(record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>): Promise<RunRecord>;
  /** Stores events of a run in one transaction; `seq` orders them. Durable once it resolves. */
  appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void>;
  /** The run's events with `seq` greater than `afterSeq` (default: all), in order. */
  runEvents(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  finishRun(runId: string, end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'>): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(threadId: string): Promise<RunRecord[]>;
  /** Every event of the thread's runs, in order. */
  threadEvents(threadId: string): Promise<AgentEvent[]>;
  /** Marks runs still `running` (left by a crash) as `interrupted`; returns their ids. */
  markInterruptedRuns(): Promise<string[]>;

  stats(owner: string): Promise<ThreadStats>;
  /** Threads of `owner` not updated since `before` (ms epoch). */
  staleThreads(owner: string, before: number): Promise<ThreadRecord[]>;
  /** Health check: throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
