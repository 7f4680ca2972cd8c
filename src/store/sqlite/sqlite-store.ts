import type { AgentEvent, RunCost } from '../../contract/events.ts';
import type { EventPage, EventPageOptions } from '../event-pages.ts';
import type {
  CreateRunOptions,
  FileRecord,
  LeaseRenewal,
  MessageRecord,
  NewMessage,
  OwnerUsage,
  Page,
  RunRecord,
  Store,
  StoredEvent,
  ThreadRecord,
  ThreadStats,
} from '../store.ts';
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
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: SqliteDatabase;
  private readonly files: SqliteFiles;
  private readonly threads: SqliteThreads;
  private readonly runs: SqliteRuns;
  private readonly leases: SqliteRunLeases;
  private readonly owners: SqliteUsage;

  constructor(path: string, now: () => number = Date.now) {
    this.db = new SqliteDatabase(path, now);
    this.files = new SqliteFiles(this.db);
    this.threads = new SqliteThreads(this.db);
    this.runs = new SqliteRuns(this.db);
    this.leases = new SqliteRunLeases(this.db);
    this.owners = new SqliteUsage(this.db);
  }

  createFile(record: Omit<FileRecord, 'created_at'>): Promise<FileRecord> {
    return this.files.createFile(record);
  }

  getFile(owner: string, id: string): Promise<FileRecord | undefined> {
    return this.files.getFile(owner, id);
  }

  listFiles(owner: string, page: Page & { purpose?: string }): Promise<FileRecord[]> {
    return this.files.listFiles(owner, page);
  }

  deleteFile(owner: string, id: string): Promise<boolean> {
    return this.files.deleteFile(owner, id);
  }

  createThread(record: Omit<ThreadRecord, 'created_at' | 'updated_at'>): Promise<ThreadRecord> {
    return this.threads.createThread(record);
  }

  getThread(owner: string, id: string): Promise<ThreadRecord | undefined> {
    return this.threads.getThread(owner, id);
  }

  listThreads(owner: string, page: Page & { query?: string }): Promise<ThreadRecord[]> {
    return this.threads.listThreads(owner, page);
  }

  updateThread(
    owner: string,
    id: string,
    change: { title?: string | null; metadata?: Record<string, unknown>; workspace?: string },
  ): Promise<ThreadRecord | undefined> {
    return this.threads.updateThread(owner, id, change);
  }

  deleteThread(owner: string, id: string): Promise<boolean> {
    return this.threads.deleteThread(owner, id);
  }

  touchThread(id: string, title?: string): Promise<void> {
    return this.threads.touchThread(id, title);
  }

  staleThreads(owner: string, before: number): Promise<ThreadRecord[]> {
    return this.threads.staleThreads(owner, before);
  }

  addMessage(record: NewMessage): Promise<MessageRecord> {
    return this.threads.addMessage(record);
  }

  listMessages(threadId: string): Promise<MessageRecord[]> {
    return this.threads.listMessages(threadId);
  }

  createRun(
    record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
    options?: CreateRunOptions,
  ): Promise<RunRecord> {
    return this.runs.createRun(record, options);
  }

  runEvents(runId: string, afterSeq?: number): Promise<StoredEvent[]> {
    return this.runs.runEvents(runId, afterSeq);
  }

  appendEvents(runId: string, events: ReadonlyArray<StoredEvent>): Promise<void> {
    return this.runs.appendEvents(runId, events);
  }

  finishRun(
    runId: string,
    end: Pick<RunRecord, 'status' | 'reason' | 'usage' | 'answer'> & { cost?: RunCost },
  ): Promise<void> {
    return this.runs.finishRun(runId, end);
  }

  getRun(id: string): Promise<RunRecord | undefined> {
    return this.runs.getRun(id);
  }

  listRuns(threadId: string): Promise<RunRecord[]> {
    return this.runs.listRuns(threadId);
  }

  threadEvents(threadId: string): Promise<AgentEvent[]> {
    return this.runs.threadEvents(threadId);
  }

  threadEventsPage(threadId: string, options: EventPageOptions): Promise<EventPage> {
    return this.runs.threadEventsPage(threadId, options);
  }

  markInterruptedRuns(): Promise<string[]> {
    return this.leases.markInterruptedRuns();
  }

  runningRuns(threadIds: readonly string[]): Promise<Map<string, string>> {
    return this.leases.runningRuns(threadIds);
  }

  renewLeases(replica: string, ttlMs: number): Promise<LeaseRenewal> {
    return this.leases.renewLeases(replica, ttlMs);
  }

  requestCancel(runId: string): Promise<boolean> {
    return this.leases.requestCancel(runId);
  }

  recordWorkspaceBytes(threadId: string, bytes: number): Promise<void> {
    return this.owners.recordWorkspaceBytes(threadId, bytes);
  }

  usage(owner: string): Promise<OwnerUsage> {
    return this.owners.usage(owner);
  }

  stats(owner: string): Promise<ThreadStats> {
    return this.owners.stats(owner);
  }

  async ping(): Promise<void> {
    this.db.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
