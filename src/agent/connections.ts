import type { QueryRows, SchemaTable } from '../connections/connection.ts';
import type { ConnectionInfo, ConnectionRegistry } from '../connections/registry.ts';
import { NotFoundError } from '../errors/index.ts';

/**
 * The database connections one run may use (docs/connections.md): those its thread names and
 * its key may see. Statements run on the host through the driver; nothing here ever reaches
 * the sandbox but rows.
 */
export interface RunConnections {
  readonly list: readonly ConnectionInfo[];
  query(id: string, sql: string): Promise<QueryRows>;
  schema(id: string): Promise<SchemaTable[]>;
}

/** The run's view of the registry: `ids` as `owner` may use them (NotFoundError for others, before the run). */
export function runConnections(
  registry: ConnectionRegistry,
  owner: string,
  ids: readonly string[],
): RunConnections {
  const list = [...new Set(ids)].map((id) => registry.info(owner, id));
  const allowed = new Set(list.map((c) => c.id));
  const check = (id: string) => {
    if (!allowed.has(id)) {
      const ids = [...allowed].map((a) => `"${a}"`).join(', ') || 'none';
      throw new NotFoundError(`no connection "${id}" in this thread (its connections: ${ids})`, {
        param: 'connection',
      });
    }
  };
  return {
    list,
    query: async (id, sql) => {
      check(id);
      return registry.query(owner, id, sql);
    },
    schema: async (id) => {
      check(id);
      return registry.schema(owner, id);
    },
  };
}

/**
 * The data section of a run's prompt for its connections: each connection's tables with their
 * columns (at most `maxTables` per connection), so every protocol knows what it can bring in.
 */
export async function connectionsSection(connections: RunConnections, maxTables = 50): Promise<string> {
  const parts: string[] = [];
  for (const c of connections.list) {
    let tables: SchemaTable[];
    try {
      tables = await connections.schema(c.id);
    } catch (error) {
      parts.push(
        `- connection "${c.id}" (${c.kind}, ${c.title}): its tables cannot be listed now (${(error as Error).message})`,
      );
      continue;
    }
    const lines = tables.slice(0, maxTables).map((t) => {
      const name = c.kind === 'sqlite' ? t.name : `${t.schema}.${t.name}`;
      const rows = t.row_estimate === null ? '' : ` (~${t.row_estimate} rows)`;
      return `  - ${name}${rows}: ${t.columns.map((col) => `${col.name} ${col.type}`).join(', ')}`;
    });
    const more = tables.length > maxTables ? [`  - … and ${tables.length - maxTables} more tables`] : [];
    parts.push(
      `- connection "${c.id}" (${c.kind}, ${c.title}), at most ${c.max_rows} rows per statement:\n${[...lines, ...more].join('\n')}`,
    );
  }
  return parts.join('\n');
}
