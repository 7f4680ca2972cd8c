import type { ColumnInfo, Look, TableInfo } from '../../src/agent/offline/schema.ts';

type Cell = string | number | null;

/**
 * A table as the look cell describes it, built in JavaScript from columns of values, so the
 * question-reading tests need no sandbox. Numbers are `number`, text that reads as numbers
 * `numeric-text`, the rest `text` (a close enough copy of `python/look.py` for these tests).
 */
export function tableOf(columns: Record<string, Cell[]>, file = 'data.csv'): TableInfo {
  const rows = Math.max(0, ...Object.values(columns).map((v) => v.length));
  return {
    file,
    label: file,
    rows,
    reader: 'csv',
    sep: ',',
    encoding: 'utf-8',
    columns: Object.entries(columns).map(([name, values]) => describe(name, values)),
  };
}

export function lookOf(...tables: TableInfo[]): Look {
  return { tables, notes: [], skipped: [], problems: [] };
}

function describe(name: string, values: Cell[]): ColumnInfo {
  const present = values.filter((v): v is string | number => v !== null && v !== '');
  const counts = new Map<string, number>();
  for (const v of present) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  const base = { name, missing: values.length - present.length, distinct: counts.size };
  const valueList = [...counts.entries()].sort((a, b) => b[1] - a[1]) as [string, number][];
  if (present.length === 0) return { ...base, dtype: 'object', kind: 'empty' };
  const numbers = present.map((v) => (typeof v === 'number' ? v : Number(String(v).replace(/[,%$]/g, ''))));
  if (numbers.every((n) => Number.isFinite(n))) {
    const numeric = present.every((v) => typeof v === 'number');
    return {
      ...base,
      dtype: numeric ? 'float64' : 'object',
      kind: numeric ? 'number' : 'numeric-text',
      min: Math.min(...numbers),
      max: Math.max(...numbers),
      integer: numbers.every(Number.isInteger),
      ...(numeric && counts.size > 12 ? {} : { values: valueList }),
    };
  }
  return { ...base, dtype: 'object', kind: 'text', values: valueList };
}

/** A medal table (the shape of many questions). */
export const MEDALS = tableOf({
  rank: [1, 2, 3, 4, 5],
  nation: ['Norway', 'Germany', 'Canada', 'United States', 'Netherlands'],
  gold: [16, 12, 11, 9, 8],
  silver: [8, 10, 8, 8, 6],
  bronze: [13, 5, 10, 6, 6],
  total: [37, 27, 29, 23, 20],
});

/** Sales by region and year, with a repeated region (groups) and a time column. */
export const SALES = tableOf({
  region: ['North', 'South', 'North', 'East', 'South', 'East'],
  year: [2019, 2019, 2020, 2020, 2021, 2021],
  salesAmount: [100, 80, 120, 60, 90, 70],
  units_sold: [10, 8, 12, 6, 9, 7],
});
