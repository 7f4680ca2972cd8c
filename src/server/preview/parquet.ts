import { type AsyncBuffer, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { PreviewCell, PreviewColumn } from './preview.ts';

/**
 * A page of a Parquet file, read by byte ranges (the footer, then only the row groups of
 * the page), so a big file is never read whole. Runs inside the preview worker, where
 * `file` asks the main thread for the ranges.
 */
export async function readParquet(
  file: AsyncBuffer,
  query: { offset: number; limit: number },
): Promise<{ columns: PreviewColumn[]; rows: PreviewCell[][]; totalRows: number }> {
  const metadata = await parquetMetadataAsync(file);
  const schema = parquetSchema(metadata);
  const columns = schema.children.map((child) => ({
    name: child.element.name,
    type: typeOf(child.element.type, child.element.converted_type, child.children.length > 0),
  }));
  const totalRows = Number(metadata.num_rows);
  const rowStart = Math.min(query.offset, totalRows);
  const rowEnd = Math.min(query.offset + query.limit, totalRows);
  const objects =
    rowEnd > rowStart ? await parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors }) : [];
  const rows = objects.map((o) => columns.map((c) => cellOf(o[c.name])));
  return { columns, rows, totalRows };
}

function typeOf(
  type: string | undefined,
  converted: string | undefined,
  nested: boolean,
): PreviewColumn['type'] {
  if (nested) return 'json';
  if (converted === 'UTF8' || converted === 'JSON' || converted === 'ENUM') return 'string';
  if (converted?.startsWith('DATE') || converted?.startsWith('TIMESTAMP') || converted?.startsWith('TIME'))
    return 'date';
  if (converted === 'DECIMAL') return 'number';
  switch (type) {
    case 'BOOLEAN':
      return 'boolean';
    case 'INT32':
    case 'INT64':
    case 'INT96':
      return 'integer';
    case 'FLOAT':
    case 'DOUBLE':
      return 'number';
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      return 'string';
    default:
      return 'string';
  }
}

function cellOf(value: unknown): PreviewCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > 10_000 ? `${value.slice(0, 10_000)}…` : value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  const text = JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? Number(v) : v));
  return text.length > 10_000 ? `${text.slice(0, 10_000)}…` : text;
}
