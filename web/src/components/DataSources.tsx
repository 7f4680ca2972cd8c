import { useState } from 'preact/hooks';
import type { Connection, ConnectionCell, ConnectionTable } from '../api/types.ts';
import { t } from '../i18n/i18n.ts';
import { extractName } from '../lib/connection-tables.ts';
import { PREVIEW_PAGE_ROWS, type SchemaState, type TablePreview } from '../state/use-data-sources.ts';

type Source = { table: string } | { sql: string };

/**
 * The key's database connections under the workspace (hidden when there are none): each one's
 * tables and columns, a paged preview of a table, and "bring into this thread" for a table or
 * a SQL query; and which connections the open thread uses.
 */
export function DataSources(props: {
  connections: Connection[];
  schemas: Record<string, SchemaState>;
  used: string[];
  preview: TablePreview | undefined;
  bringing: boolean;
  onExpand: (id: string) => void;
  onPreview: (connectionId: string, table: ConnectionTable, offset: number) => void;
  onClosePreview: () => void;
  onBring: (connectionId: string, source: Source, name: string) => void;
}) {
  if (props.connections.length === 0) return null;
  return (
    <section class="data-sources" aria-label={t('sources.title')}>
      <div class="panel-head">
        <h2>{t('sources.title')}</h2>
      </div>
      <p class="muted sources-used">
        {props.used.length ? t('sources.used', { ids: props.used.join(', ') }) : t('sources.unused')}
      </p>
      {props.connections.map((c) => (
        <ConnectionItem key={c.id} connection={c} {...props} />
      ))}
    </section>
  );
}

function ConnectionItem(props: {
  connection: Connection;
  schemas: Record<string, SchemaState>;
  used: string[];
  preview: TablePreview | undefined;
  bringing: boolean;
  onExpand: (id: string) => void;
  onPreview: (connectionId: string, table: ConnectionTable, offset: number) => void;
  onClosePreview: () => void;
  onBring: (connectionId: string, source: Source, name: string) => void;
}) {
  const { connection } = props;
  const [open, setOpen] = useState(false);
  const schema = props.schemas[connection.id];
  return (
    <div class="connection" data-connection={connection.id}>
      <button
        type="button"
        class="tree-row folder"
        aria-expanded={open}
        onClick={() => {
          if (!open) props.onExpand(connection.id);
          setOpen(!open);
        }}
      >
        <span class="twisty">{open ? '▾' : '▸'}</span>
        <span class="name">{connection.title}</span>
        {props.used.includes(connection.id) && <span class="tag generated">{t('sources.inUse')}</span>}
        <span class="muted size">{connection.kind}</span>
      </button>
      {open && (
        <div class="connection-body">
          {schema === undefined || schema === 'loading' ? (
            <p class="muted">{t('sources.loading')}</p>
          ) : 'error' in schema ? (
            <p class="error" role="alert">
              {schema.error}
            </p>
          ) : schema.tables.length === 0 ? (
            <p class="muted">{t('sources.noTables')}</p>
          ) : (
            schema.tables.map((table) => (
              <TableItem key={`${table.schema}.${table.name}`} table={table} {...props} />
            ))
          )}
          <QueryBox {...props} />
        </div>
      )}
    </div>
  );
}

function TableItem(props: {
  connection: Connection;
  table: ConnectionTable;
  preview: TablePreview | undefined;
  bringing: boolean;
  onPreview: (connectionId: string, table: ConnectionTable, offset: number) => void;
  onClosePreview: () => void;
  onBring: (connectionId: string, source: Source, name: string) => void;
}) {
  const { connection, table } = props;
  const shown =
    props.preview?.connectionId === connection.id &&
    props.preview.table.schema === table.schema &&
    props.preview.table.name === table.name
      ? props.preview
      : undefined;
  const label = connection.kind === 'sqlite' ? table.name : `${table.schema}.${table.name}`;
  return (
    <div class="db-table" data-table={table.name}>
      <div class="db-table-head">
        <span class="name">{label}</span>
        {table.row_estimate !== null && (
          <span class="muted size">{t('sources.rows', { count: table.row_estimate })}</span>
        )}
      </div>
      <ul class="db-columns">
        {table.columns.map((column) => (
          <li key={column.name}>
            <span class="column-name">{column.name}</span> <span class="muted">{column.type}</span>
          </li>
        ))}
      </ul>
      <div class="db-actions">
        <button
          type="button"
          class="small ghost preview-table"
          onClick={() => (shown ? props.onClosePreview() : props.onPreview(connection.id, table, 0))}
        >
          {shown ? t('sources.closePreview') : t('sources.preview')}
        </button>
        <button
          type="button"
          class="small bring-table"
          disabled={props.bringing}
          onClick={() =>
            props.onBring(
              connection.id,
              { table: `${table.schema}.${table.name}` },
              extractName(connection.id, table.name),
            )
          }
        >
          {t('sources.bring')}
        </button>
      </div>
      {shown && (
        <PreviewTable preview={shown} onPage={(offset) => props.onPreview(connection.id, table, offset)} />
      )}
    </div>
  );
}

function PreviewTable(props: { preview: TablePreview; onPage: (offset: number) => void }) {
  const { preview } = props;
  if (preview.error)
    return (
      <p class="error" role="alert">
        {preview.error}
      </p>
    );
  if (!preview.result) return <p class="muted">{t('sources.loading')}</p>;
  const { columns, rows } = preview.result;
  return (
    <div class="db-preview" aria-busy={preview.loading}>
      <div class="table-scroll">
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.name}>{c.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={preview.offset + i}>
                {row.map((cell, j) => (
                  <td key={j}>{cellText(cell)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="pager">
        <button
          type="button"
          class="small ghost page-prev"
          disabled={preview.offset === 0 || preview.loading}
          onClick={() => props.onPage(Math.max(0, preview.offset - PREVIEW_PAGE_ROWS))}
        >
          {t('sources.prev')}
        </button>
        <span class="muted page-range">
          {rows.length
            ? t('sources.range', { from: preview.offset + 1, to: preview.offset + rows.length })
            : t('sources.noRows')}
        </span>
        <button
          type="button"
          class="small ghost page-next"
          disabled={!preview.more || preview.loading}
          onClick={() => props.onPage(preview.offset + PREVIEW_PAGE_ROWS)}
        >
          {t('sources.next')}
        </button>
      </div>
    </div>
  );
}

/** Cells are shown as text, never as markup (a cell is hostile). */
function cellText(cell: ConnectionCell): string {
  return cell === null ? 'NULL' : String(cell);
}

function QueryBox(props: {
  connection: Connection;
  bringing: boolean;
  onBring: (connectionId: string, source: Source, name: string) => void;
}) {
  const [sql, setSql] = useState('');
  const [name, setName] = useState('');
  const id = props.connection.id;
  return (
    <form
      class="db-query"
      onSubmit={(e) => {
        e.preventDefault();
        if (sql.trim()) props.onBring(id, { sql }, name.trim() || `${extractName(id, 'query')}`);
      }}
    >
      <textarea
        class="query-sql"
        rows={3}
        placeholder={t('sources.sqlPlaceholder')}
        aria-label={t('sources.sql')}
        value={sql}
        onInput={(e) => setSql((e.target as HTMLTextAreaElement).value)}
      />
      <div class="db-actions">
        <input
          class="query-name"
          placeholder={t('sources.namePlaceholder')}
          aria-label={t('sources.name')}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="small bring-query" disabled={props.bringing || !sql.trim()}>
          {t('sources.bringQuery')}
        </button>
      </div>
    </form>
  );
}
