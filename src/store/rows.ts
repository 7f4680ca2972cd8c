import type { RunRecord, StoredRunStatus, ThreadRecord } from './store.ts';

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
    answer: (row.answer as string | null) ?? null,
    created_at: row.created_at as number,
    finished_at: (row.finished_at as number | null) ?? null,
  };
}
