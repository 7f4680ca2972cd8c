import type { Connection, ConnectionTable } from '../api/types.ts';

/**
 * A table named for a statement: schema-qualified except on SQLite, each part quoted the way
 * the database quotes identifiers (a name from the schema is never SQL of its own).
 */
export function qualifiedTable(kind: Connection['kind'], table: ConnectionTable): string {
  const quote = (name: string) =>
    kind === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
  return kind === 'sqlite' ? quote(table.name) : `${quote(table.schema)}.${quote(table.name)}`;
}

/** A workspace name for what a table brings in: `<connection>-<table>` with only safe characters. */
export function extractName(connectionId: string, tableName: string): string {
  return `${connectionId}-${tableName}`.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 100);
}
