import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Connection, ConnectionQueryResult, ConnectionTable } from '../api/types.ts';
import { qualifiedTable } from '../lib/connection-tables.ts';
import type { ThreadSession } from './thread-session.ts';

/** Rows one page of a table's preview shows. */
export const PREVIEW_PAGE_ROWS = 20;

/** Where a thread's metadata remembers its connections (docs/connections.md). */
const THREAD_CONNECTIONS_KEY = 'connection_ids';

export type SchemaState = { tables: ConnectionTable[] } | { error: string } | 'loading';

export interface TablePreview {
  connectionId: string;
  table: ConnectionTable;
  offset: number;
  result?: ConnectionQueryResult;
  /** One more row than a page came: there is a next page. */
  more: boolean;
  /** A page is being fetched: the rows shown are still those of `offset`. */
  loading: boolean;
  error?: string;
}

/** The ids of the connections a thread uses (its metadata key `connection_ids`). */
export function threadConnectionIds(session: ThreadSession | undefined): string[] {
  const value = session?.thread.metadata[THREAD_CONNECTIONS_KEY];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The key's database connections in the studio: the list (loaded once), each one's tables
 * (loaded when first expanded), a paged preview of one table, and bringing a table or a
 * statement's rows into the thread (made first when none is open), which then remembers the
 * connection and lists its files again.
 */
export function useDataSources(options: {
  ensureThread: () => Promise<ThreadSession>;
  onError: (error: unknown) => void;
}): {
  connections: Connection[];
  schemas: Record<string, SchemaState>;
  expand(id: string): void;
  preview: TablePreview | undefined;
  showPreview(connectionId: string, table: ConnectionTable, offset: number): void;
  closePreview(): void;
  bringing: boolean;
  bring(
    connectionId: string,
    source: { table: string } | { sql: string },
    name: string,
  ): Promise<string | undefined>;
} {
  const [connections, setConnections] = useState<Connection[]>([]);
  const [schemas, setSchemas] = useState<Record<string, SchemaState>>({});
  const [preview, setPreview] = useState<TablePreview>();
  const [bringing, setBringing] = useState(false);
  const previewAsked = useRef(0);

  useEffect(() => {
    // No connection, or a server without them: the section stays hidden.
    api.listConnections().then(
      (list) => setConnections(list.data),
      () => setConnections([]),
    );
  }, []);

  const expand = (id: string) => {
    if (schemas[id] && schemas[id] !== 'loading' && !('error' in (schemas[id] as object))) return;
    setSchemas((all) => ({ ...all, [id]: 'loading' }));
    api.connectionSchema(id).then(
      (schema) => setSchemas((all) => ({ ...all, [id]: { tables: schema.tables } })),
      (error: Error) => setSchemas((all) => ({ ...all, [id]: { error: error.message } })),
    );
  };

  const showPreview = (connectionId: string, table: ConnectionTable, offset: number) => {
    const connection = connections.find((c) => c.id === connectionId);
    if (!connection) return;
    const start = Math.max(0, Math.floor(offset));
    const asked = ++previewAsked.current;
    // Another table starts empty; another page of the same keeps its rows (and their range) until the new ones come.
    setPreview((now) =>
      now && now.connectionId === connectionId && now.table === table
        ? { ...now, loading: true }
        : { connectionId, table, offset: start, more: false, loading: true },
    );
    const sql = `SELECT * FROM ${qualifiedTable(connection.kind, table)} LIMIT ${PREVIEW_PAGE_ROWS + 1} OFFSET ${start}`;
    const settle = (next: TablePreview) => {
      // Only the latest page asked for is shown (an older answer may arrive after it).
      if (asked === previewAsked.current) setPreview(next);
    };
    api.queryConnection(connectionId, sql, PREVIEW_PAGE_ROWS + 1).then(
      (result) =>
        settle({
          connectionId,
          table,
          offset: start,
          more: result.rows.length > PREVIEW_PAGE_ROWS,
          loading: false,
          result: { ...result, rows: result.rows.slice(0, PREVIEW_PAGE_ROWS) },
        }),
      (error: Error) =>
        settle({ connectionId, table, offset: start, more: false, loading: false, error: error.message }),
    );
  };

  const bring = async (
    connectionId: string,
    source: { table: string } | { sql: string },
    name: string,
  ): Promise<string | undefined> => {
    setBringing(true);
    try {
      const session = await options.ensureThread();
      const done = await api.extractConnection(session.id, connectionId, source, name);
      const ids = threadConnectionIds(session);
      if (!ids.includes(connectionId)) {
        // The thread remembers the connection: its runs may query it, and the studio shows it.
        const metadata = { ...session.thread.metadata, [THREAD_CONNECTIONS_KEY]: [...ids, connectionId] };
        session.setThread(await api.updateThread(session.id, { metadata }));
      }
      await session.refreshFiles();
      return done.path;
    } catch (error) {
      options.onError(error);
      return undefined;
    } finally {
      setBringing(false);
    }
  };

  return {
    connections,
    schemas,
    expand,
    preview,
    showPreview,
    closePreview: () => {
      previewAsked.current++;
      setPreview(undefined);
    },
    bringing,
    bring,
  };
}
