import type { AgentEvent, RunCost } from '../contract/events.ts';
import type {
  FileRecord,
  LeaseRenewal,
  MessageRecord,
  RunRecord,
  StoredEvent,
  StoredRunStatus,
  ThreadRecord,
  ThreadStats,
} from './store.ts';

/** A database row, as both stores read it (JSON columns as text, times as epoch ms). */
export type Row = Record<string, unknown>;

export function threadOf(row: Row): ThreadRecord {
  return {
    id: row.id as string,
    owner: row.owner as string,
    workspace: row.workspace as string,
    title: (row.title as string | null) ?? null,
    metadata: JSON.parse(row.metadata as string) as Record<string, unknown>,
    created_at: row.created_at as number,
    updated_at: row.updated_at as number,
  };
}

export function runOf(row: Row): RunRecord {
  return {
    id: row.id as string,
    thread_id: row.thread_id as string,
    model: row.model as string,
    protocol: row.protocol as string,
    status: row.status as StoredRunStatus,
    reason: (row.reason as string | null) ?? null,
    usage: JSON.parse(row.usage as string) as RunRecord['usage'],
    cost: row.cost ? (JSON.parse(row.cost as string) as RunCost) : null,
    answer: (row.answer as string | null) ?? null,
    created_at: row.created_at as number,
    finished_at: (row.finished_at as number | null) ?? null,
  };
}

export function messageOf(row: Row): MessageRecord {
  return {
    id: row.id as string,
    thread_id: row.thread_id as string,
    role: row.role as MessageRecord['role'],
    content: row.content as string,
    file_ids: JSON.parse(row.file_ids as string) as string[],
    run_id: (row.run_id as string | null) ?? null,
    revises: (row.revises as string | null) ?? null,
    created_at: row.created_at as number,
  };
}

export function fileOf(row: Row): FileRecord {
  return {
    id: row.id as string,
    owner: row.owner as string,
    filename: row.filename as string,
    purpose: row.purpose as string,
    bytes: row.bytes as number,
    sha256: row.sha256 as string,
    created_at: row.created_at as number,
  };
}

/** An event as both stores keep it: its JSON text in `body`. */
export function eventOf(row: Row): AgentEvent {
  return JSON.parse(row.body as string) as AgentEvent;
}

export function storedEventOf(row: Row): StoredEvent {
  return { seq: row.seq as number, event: eventOf(row) };
}

/** A run as `createRun` stores it: running, nothing used, no outcome yet. */
export function newRunOf(
  record: Pick<RunRecord, 'id' | 'thread_id' | 'model' | 'protocol'>,
  createdAt: number,
): RunRecord {
  return {
    ...record,
    status: 'running',
    reason: null,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    cost: null,
    answer: null,
    created_at: createdAt,
    finished_at: null,
  };
}

/** A `LIKE … ESCAPE '\'` pattern for titles containing `query` (its wildcards taken literally), or null for none. */
export function containsPattern(query: string | undefined): string | null {
  return query ? `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
}

/** Rows of (id, cancel_requested) whose leases were renewed. */
export function leaseRenewalOf(rows: Row[]): LeaseRenewal {
  return {
    held: rows.map((r) => r.id as string),
    cancelRequested: rows.filter((r) => r.cancel_requested).map((r) => r.id as string),
  };
}

/** Rows of (thread_id, id) of running runs, as thread id → run id. */
export function runningRunsOf(rows: Row[]): Map<string, string> {
  return new Map(rows.map((r) => [r.thread_id as string, r.id as string]));
}

/** Rows of (status, n), as the run counts of ThreadStats. */
export function runCountsOf(rows: Row[]): ThreadStats['runs'] {
  return Object.fromEntries(rows.map((r) => [r.status as string, r.n as number]));
}
