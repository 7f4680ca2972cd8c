import { type RunConnections, runConnections } from '../../agent/connections.ts';
import type { ThreadRecord } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Where a thread remembers its connections: a key of its metadata (ids only, never a URL).
 * Ids found there are checked against the key again on every run, so editing the metadata
 * gives no access.
 */
export const THREAD_CONNECTIONS_KEY = 'connection_ids';

/** NotFoundError for any id of `connection_ids` the key may not use: called before anything is created. */
export function checkConnectionIds(deps: AppDeps, owner: string, ids: readonly string[] | undefined): void {
  for (const id of ids ?? []) deps.connections.info(owner, id);
}

export function rememberedConnectionIds(thread: ThreadRecord): string[] {
  const value = thread.metadata?.[THREAD_CONNECTIONS_KEY];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The connections of a run: the thread's remembered ones plus those of the request (which
 * the thread then remembers). Undefined when there are none.
 */
export async function connectionsForRun(
  deps: AppDeps,
  owner: string,
  thread: ThreadRecord,
  requested: readonly string[] | undefined,
): Promise<RunConnections | undefined> {
  const remembered = rememberedConnectionIds(thread);
  const ids = [...new Set([...remembered, ...(requested ?? [])])];
  if (ids.length === 0) return undefined;
  // A remembered id the key may no longer use (the operator changed the file) is left out.
  const usable = ids.filter((id) => deps.connections.list(owner).some((c) => c.id === id));
  checkConnectionIds(deps, owner, requested);
  if (usable.length !== remembered.length || usable.some((id, i) => remembered[i] !== id)) {
    await deps.store.updateThread(owner, thread.id, {
      metadata: { ...thread.metadata, [THREAD_CONNECTIONS_KEY]: usable },
    });
  }
  return usable.length ? runConnections(deps.connections, owner, usable) : undefined;
}
