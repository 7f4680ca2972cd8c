import type { JsonCell } from './connection.ts';

/** A driver's value as a JSON cell: exact integers stay numbers, dates become ISO strings. */
export function jsonCell(value: unknown): JsonCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Buffer.isBuffer(value)) return `base64:${value.toString('base64')}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A decimal or 64-bit integer the driver gave as text: a number when that loses nothing. */
export function numericText(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (/^-?\d+$/.test(text)) return Number.isSafeInteger(n) ? n : text;
  return n;
}

/** About the bytes a row takes as JSON (what the byte cap counts). */
export function rowBytes(row: readonly JsonCell[]): number {
  let bytes = 2;
  for (const cell of row) {
    bytes +=
      typeof cell === 'string' ? Buffer.byteLength(cell) + 3 : cell === null ? 5 : String(cell).length + 1;
  }
  return bytes;
}
