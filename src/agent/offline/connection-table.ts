import type { SchemaTable } from '../../connections/connection.ts';
import { type ExtractConnection, extractToWorkspace } from '../../connections/extract.ts';
import type { RunContext } from '../context.ts';
import type { AgentEvent } from '../events.ts';

interface Candidate {
  connection: ExtractConnection;
  table: SchemaTable;
  score: number;
}

/**
 * The offline analyst reads files only; a thread with database connections gets the table its
 * question is about brought into the workspace as Parquet first, by the same extract the
 * `POST /v1/threads/{id}/connections/{id}/extract` route runs (read-only, capped by the
 * connection's `max_rows`). The table is the one the question names (its name, or its name
 * without a plural `s`), else a connection's only table; with several tables and none named,
 * nothing is brought in and a notice lists them. The file is `<connection>-<table>.parquet`, so
 * it never replaces an upload of the table's own name.
 */
export async function* bringConnectionTable(
  context: Pick<RunContext, 'connections' | 'session' | 'budget'>,
  question: string,
): AsyncGenerator<AgentEvent, void> {
  const connections = context.connections;
  if (!connections || connections.list.length === 0) return;
  const round = Math.max(1, context.budget.round);
  const words = new Set(question.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
  const candidates: Candidate[] = [];
  for (const info of connections.list) {
    const connection: ExtractConnection = {
      id: info.id,
      kind: info.kind,
      query: (sql) => connections.query(info.id, sql),
      schema: () => connections.schema(info.id),
    };
    let tables: SchemaTable[];
    try {
      tables = await connection.schema();
    } catch (error) {
      yield notice(
        round,
        `the tables of connection "${info.id}" cannot be listed: ${(error as Error).message}`,
      );
      continue;
    }
    for (const table of tables) candidates.push({ connection, table, score: mentions(words, table.name) });
  }
  const named = candidates.filter((c) => c.score > 0).sort((a, b) => b.score - a.score);
  const chosen = named[0] ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (!chosen) {
    if (candidates.length > 0) {
      const names = candidates.map((c) => `${c.connection.id}.${c.table.name}`).join(', ');
      yield notice(
        round,
        `the question names none of the connections' tables (${names}); none was brought in`,
      );
    }
    return;
  }
  const { connection, table } = chosen;
  const name = `${connection.id}-${table.name}`.replace(/[^A-Za-z0-9 _.-]/g, '_').slice(0, 100);
  const source = { table: connection.kind === 'sqlite' ? table.name : `${table.schema}.${table.name}` };
  try {
    const done = await extractToWorkspace(connection, source, name, context.session.workspace);
    const cut = done.truncated ? ` (only the first ${done.rows} rows: the connection's cap)` : '';
    yield notice(
      round,
      `brought table "${table.name}" of connection "${connection.id}" into the workspace as ${done.path}: ${done.rows} rows${cut}`,
    );
  } catch (error) {
    yield notice(
      round,
      `table "${table.name}" of connection "${connection.id}" could not be brought in: ${(error as Error).message}`,
    );
  }
}

/** How strongly the question's words name the table: 2 for its name, 1 for its singular or plural. */
function mentions(words: Set<string>, table: string): number {
  const name = table.toLowerCase();
  if (words.has(name)) return 2;
  const other = name.endsWith('s') ? name.slice(0, -1) : `${name}s`;
  return words.has(other) ? 1 : 0;
}

function notice(round: number, message: string): AgentEvent {
  return { type: 'notice', round, message };
}
