import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Thread } from '../api/types.ts';
import { onChange } from './changes.ts';

/** How long typing in the search waits before it asks the server. */
const SEARCH_DEBOUNCE_MS = 200;

/**
 * The server's threads matching `query` (titles), newest first. Refetched when the query
 * changes and when a `threads` or `key` change is announced; the server's list is the only copy.
 */
export function useThreadList(query: string): Thread[] {
  const [threads, setThreads] = useState<Thread[]>([]);
  const latest = useRef(0);
  useEffect(() => {
    const load = () => {
      const asked = ++latest.current;
      void api.listThreads({ limit: 100, query: query.trim() }).then(
        // An older answer arriving late does not overwrite a newer one.
        (list) => asked === latest.current && setThreads(list.data),
        () => {},
      );
    };
    const timer = setTimeout(load, query ? SEARCH_DEBOUNCE_MS : 0);
    const off = onChange(['threads', 'key'], load);
    return () => {
      clearTimeout(timer);
      off();
    };
  }, [query]);
  return threads;
}
