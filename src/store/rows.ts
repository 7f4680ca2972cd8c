import type { AgentEvent, RunCost } from '../contract/events.ts';
import type {
  FileRecord,
  MessageRecord,
  RunRecord,
  StoredEvent,
  StoredRunStatus,
  ThreadRecord,
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
