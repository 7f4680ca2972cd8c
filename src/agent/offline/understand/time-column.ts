import type { ColumnInfo, TableInfo } from '../schema.ts';
import { tokenize } from '../text/tokens.ts';

const TIME_WORDS = new Set([
  'year',
  'date',
  'season',
  'month',
  'time',
  'day',
  'period',
  'week',
  'quarter',
  '年',
  '年份',
  '日期',
  '月份',
  '时间',
]);

/** Whether a column holds years (whole numbers from 1000 to 2100, or a name that says so). */
export function isYearColumn(column: ColumnInfo): boolean {
  const numeric = column.kind === 'number' || column.kind === 'numeric-text';
  const year = (value: number) => Number.isInteger(value) && value >= 1000 && value <= 2100;
  // Most values are years (a stray "191822" for "1918–22" does not make the column something else).
  const values = column.values?.map(([value, count]) => [Number(value), count] as const) ?? [];
  const share = values.length
    ? values.reduce((n, [v, c]) => n + (year(v) ? c : 0), 0) / values.reduce((n, [, c]) => n + c, 0)
    : year(Number(column.min)) && year(Number(column.max))
      ? 1
      : 0;
  const inRange = numeric && column.integer === true && share >= 0.8;
  const named =
    tokenize(column.name).some((t) => TIME_WORDS.has(t.word)) || /年|日期|时间/u.test(column.name);
  return inRange && (named || column.distinct >= 2);
}

/** The table's time column: a date column, else a column of years, preferring one named so. */
export function timeColumn(table: TableInfo): ColumnInfo | undefined {
  const named = (c: ColumnInfo) => tokenize(c.name).some((t) => TIME_WORDS.has(t.word));
  const dates = table.columns.filter((c) => c.kind === 'date');
  const years = table.columns.filter(isYearColumn);
  return (
    dates.find(named) ??
    years.find(named) ??
    dates[0] ??
    years.find((c) => c.distinct >= Math.max(2, table.rows * 0.5))
  );
}
