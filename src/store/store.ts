import type { AgentEvent, RunCost, TokenCount } from '../contract/events.ts';
import type { StoredRunStatus } from '../contract/run-status.ts';
import type { EventPage, EventPageOptions } from './event-pages.ts';

/**
 * What Analyst persists, independent of where (docs/spec.md#persistence). The embedded default is SQLite
 * (`sqlite/`); PostgreSQL (`postgres/`) serves several replicas of one service. Every
 * record belongs to an owner (an API key, or `local` in open mode); every read takes the
 * owner, so one key never sees another's records.
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
  /**
   * The earlier user message this question revises (an edit, or a regenerate with the same
   * text): the model was given the conversation before that one (docs/spec.md#revisions).
   */
  revises: string | null;
  created_at: number;
}

/** A message to store; `revises` defaults to null. */
export type NewMessage = Omit<MessageRecord, 'created_at' | 'revises'> & { revises?: string | null };

/** A run's stored state; `interrupted` marks runs a crashed server left unfinished. */
export type { StoredRunStatus } from '../contract/run-status.ts';

export interface RunRecord {
  id: string;
  thread_id: string;
  model: string;
  protocol: string;
  status: StoredRunStatus;
  reason: string | null;
  usage: TokenCount;
  /** Null for runs that ended before a cost was measured, or broke outside the agent loop. */
  cost: RunCost | null;
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

/**
 * A run's lease: the replica (server process) executing it renews it while the run goes on;
 * once it has passed, any replica may mark the run interrupted. Runs of a single server
 * have none (a restart marks whatever it left running).
 */
export interface RunLease {
  /** The replica that executes the run. */
  replica: string;
  /** How long the lease lasts from now without a renewal. */
  ttlMs: number;
}

export interface CreateRunOptions {
  lease?: RunLease;
  /**
   * Refuse (LimitExceededError, limit `runs`) when the thread's owner already has this many
   * runs going, counted in the store, so every replica sees the same count.
   */
  maxRunningForOwner?: number;
}

/** What a replica learns when it renews its leases. */
export interface LeaseRenewal {
  /** Runs whose lease it still holds (a run missing here was taken from it: stop it). */
  held: string[];
  /** Runs someone asked to cancel (through any replica). */
  cancelRequested: string[];
}

/** What one owner holds, for per-key limits. */
export interface OwnerUsage {
  threads: number;
  /** Bytes of uploaded files. */
  fileBytes: number;
  /** Bytes in the owner's workspaces, as last recorded (`recordWorkspaceBytes`). */
  workspaceBytes: number;
  /** Runs going now, on any replica. */
  runningRuns: number;
}

/**
 * Notices between processes that share one store (PostgreSQL LISTEN/NOTIFY): what lets
 * several replicas act as one service. A notice may be lost (a dropped connection), so
 * listeners also poll; a notice only says "look again".
 */
export interface StoreNotices {
  /** Calls `listener` when the run got events or changed state, in any process. Returns a remover. */
  onRunChange(runId: string, listener: () => void): () => void;
  /** Calls `listener` with each run some process asked to cancel. */
  onCancelRequest(listener: (runId: string) => void): () => void;
  /** Calls `listener` with each thread deleted, in any process. */
  onThreadDeleted(listener: (threadId: string) => void): () => void;
}

export interface Store {
  /** `sqlite` or `postgres`, for status pages. */
  readonly kind: string;
  /** Present when other processes may share this store (then runs take leases). */
  readonly notices?: StoreNotices;

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

  addMessage(record: NewMessage): Promise<MessageRecord>;
  listMessages(threadId: string): Promise<MessageRecord[]>;

  /**
   * Stores a new run as `running`. At most one run per thread runs at a time, enforced by
   * the store: ConflictError when the thread has one (a run whose lease has passed is first
   * marked interrupted); LimitExceededError when `maxRunningForOwner` is reached.
   */
  createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options?: CreateRunOptions,
  ): Promise<RunRecord>;
  /** Stores events of a run in one transaction; `seq` orders them. Durable once it resolves. */
  appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void>;
  /** The run's events with `seq` greater than `afterSeq` (default: all), in order. */
  runEvents(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  /** Writes a running run's outcome (once: a run no longer `running` keeps its state) and ends its lease. */
  finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(threadId: string): Promise<RunRecord[]>;
  /** Every event of the thread's runs, in order. */
  threadEvents(threadId: string): Promise<AgentEvent[]>;
  /**
   * One page of the thread's events in the order of `threadEvents`, as stored JSON text:
   * bounded in count and size, so serving it costs the same whatever the thread holds.
   */
  threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage>;
  /**
   * Marks runs whose executor is gone as `interrupted` — those still `running` with no lease
   * (left by a crashed single server) or with a lease that has passed — and returns their ids.
   * Runs another live replica holds are left alone.
   */
  markInterruptedRuns(): Promise<string[]>;
  /** The running run of each of these threads that has one (thread id → run id). */
  runningRuns(threadIds: readonly string[]): Promise<Map<string, string>>;
  /** Extends the leases `replica` holds by `ttlMs` from now; see LeaseRenewal. */
  renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal>;
  /** Asks whoever executes the run to cancel it; false when it is not running. */
  requestCancel(runId: string): Promise<boolean>;

  /** Records how many bytes the thread's workspace holds (measured by the caller). */
  recordWorkspaceBytes(threadId: string, bytes: number): Promise<void>;
  usage(owner: string): Promise<OwnerUsage>;

  stats(owner: string): Promise<ThreadStats>;
  /** Threads of `owner` not updated since `before` (ms epoch). */
  staleThreads(owner: string, before: number): Promise<ThreadRecord[]>;
  /** Health check: throws when the store cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
