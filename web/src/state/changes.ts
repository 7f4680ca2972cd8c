/**
 * What changed on the server because of something this page did, announced by whoever did it
 * and heard by the views that show it: lists refetch on these events, not on a counter.
 * - `threads`: a thread was made, renamed, deleted, or a run changed its title or time;
 * - `key`: the person gave an API key (what was refused before may load now).
 */
export type Change = 'threads' | 'key';

const listeners = new Map<Change, Set<() => void>>();

export function announce(change: Change): void {
  for (const listener of listeners.get(change) ?? []) listener();
}

/** Calls `listener` on each of `changes`; returns the unsubscribe. */
export function onChange(changes: Change[], listener: () => void): () => void {
  for (const change of changes) {
    const set = listeners.get(change) ?? new Set();
    set.add(listener);
    listeners.set(change, set);
  }
  return () => {
    for (const change of changes) listeners.get(change)?.delete(listener);
  };
}
