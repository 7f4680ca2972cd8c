import type { PreviewCell, PreviewColumn } from './preview.ts';
import { inferType } from './preview.ts';

/**
 * A JSON file as a table when it is a list of records (`[{...}, ...]`, or an object holding
 * one such list), otherwise as its pretty-printed lines. Runs inside the preview worker.
 */
export function readJson(
  text: string,
  query: { offset: number; limit: number },
): { columns: PreviewColumn[]; rows: PreviewCell[][]; totalRows: number; asTable: boolean } {
  const value: unknown = JSON.parse(text);
  const records = recordsOf(value);
  if (records) {
    const names: string[] = [];
    const seen = new Set<string>();
    for (const record of records.slice(0, 1000)) {
      for (const key of Object.keys(record)) {
        if (!seen.has(key) && names.length < 500) {
          seen.add(key);
          names.push(key);
        }
      }
    }
    const sample = records.slice(0, 200);
    const columns = names.map((name) => ({
      name,
      type: jsonType(sample.map((r) => r[name])),
    }));
    const rows = records
      .slice(query.offset, query.offset + query.limit)
      .map((r) => names.map((n) => cellOf(r[n])));
    return { columns, rows, totalRows: records.length, asTable: true };
  }
  const lines = JSON.stringify(value, null, 2).split('\n');
  return {
    columns: [{ name: 'line', type: 'string' }],
    rows: lines.slice(query.offset, query.offset + query.limit).map((l) => [l]),
    totalRows: lines.length,
    asTable: false,
  };
}

type Row = Record<string, unknown>;
const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

function recordsOf(value: unknown): Row[] | undefined {
  if (Array.isArray(value) && value.length > 0 && value.every(isRecord)) return value;
  if (isRecord(value)) {
    const lists = Object.values(value).filter(
      (v): v is Row[] => Array.isArray(v) && v.length > 0 && v.every(isRecord),
    );
    if (lists.length === 1) return lists[0];
  }
  return undefined;
}

function jsonType(values: unknown[]): PreviewColumn['type'] {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return 'string';
  if (present.every((v) => typeof v === 'boolean')) return 'boolean';
  if (present.every((v) => typeof v === 'number'))
    return present.every(Number.isInteger) ? 'integer' : 'number';
  if (present.every((v) => typeof v === 'string')) {
    const t = inferType(present as string[]);
    return t === 'date' ? 'date' : 'string';
  }
  return 'json';
}

function cellOf(value: unknown): PreviewCell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = JSON.stringify(value);
  return text.length > 10_000 ? `${text.slice(0, 10_000)}…` : text;
}
