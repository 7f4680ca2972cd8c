import { parquetWriteBuffer } from 'hyparquet-writer';

/**
 * A big table made in JavaScript for the table-query tests (server and browser): its rows as
 * arrays, so a test computes what a sort or filter must give by itself, and the same rows as
 * CSV and as Parquet.
 */
export interface BigTable {
  id: number[];
  city: string[];
  /** Null every 97th row (an empty CSV field). */
  amount: Array<number | null>;
  /** `YYYY-MM-DD`. */
  day: string[];
}

export const CITIES = ['Oslo', 'Lima, Peru', "O'Hara", 'Zürich', 'Pune', 'São Paulo', 'X"Y'];

export function bigTable(rows: number): BigTable {
  const table: BigTable = { id: [], city: [], amount: [], day: [] };
  for (let i = 0; i < rows; i++) {
    table.id.push(i);
    table.city.push(CITIES[(i * 31) % CITIES.length]!);
    table.amount.push(i % 97 === 5 ? null : ((i * 7919) % 10007) / 10);
    table.day.push(`2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`);
  }
  return table;
}

const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

export function bigTableCsv(table: BigTable): string {
  const lines = ['id,city,amount,day'];
  for (let i = 0; i < table.id.length; i++)
    lines.push(`${table.id[i]},${quote(table.city[i]!)},${table.amount[i] ?? ''},${table.day[i]}`);
  return `${lines.join('\n')}\n`;
}

export function bigTableParquet(table: BigTable): Uint8Array {
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: table.id, type: 'INT32' },
        { name: 'city', data: table.city, type: 'STRING' },
        { name: 'amount', data: table.amount, type: 'DOUBLE' },
        { name: 'day', data: table.day, type: 'STRING' },
      ],
    }),
  );
}

/** Row numbers (0-based) of the table that `keep` keeps, in file order. */
export function rowsWhere(table: BigTable, keep: (i: number) => boolean): number[] {
  const kept: number[] = [];
  for (let i = 0; i < table.id.length; i++) if (keep(i)) kept.push(i);
  return kept;
}

/** Rows sorted by a column (nulls last, ties in file order), as SQL's ORDER BY … NULLS LAST, rowid. */
export function sortRows<T extends number | string>(
  rows: number[],
  value: (i: number) => T | null,
  descending: boolean,
): number[] {
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === null && y === null ? a - b : x === null ? 1 : -1;
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    return a - b;
  });
}

/** A row as the preview gives it. */
export function rowOf(table: BigTable, i: number): Array<string | number | null> {
  return [table.id[i]!, table.city[i]!, table.amount[i] ?? null, table.day[i]!];
}
