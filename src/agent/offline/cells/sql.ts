import type { Aggregate, Condition, Measure } from '../plan.ts';
import type { TableInfo } from '../schema.ts';
import { column, num, sqlName } from './code.ts';

/**
 * Pieces of the SQL the offline analyst writes for a file too large to load whole (one the
 * look cell gave a DuckDB `source`): the same filters, measures and cleaning as the pandas
 * cells in `code.ts`, pushed down to DuckDB so only the result comes back to Python.
 * Undefined where SQL cannot say what the pandas cell means (a span of rows in table order).
 */

/** `'text'` as a DuckDB string literal (standard SQL: no backslash escapes). */
export function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** A number literal (the plan's numbers are finite: they were read from the question or the data). */
function sqlNumber(value: number): string {
  return Number.isFinite(value) ? num(value) : 'NULL';
}

// The same cleaning as python/to_number.py: footnotes, a trailing "(estimate)", currency, separators, "3rd".
const TO_NUMBER = String.raw`\[[^\]]*\]|\s*\([^)]*\)\s*$|^[$€£¥=~≈]|[,%\s]|[$€£¥]$`;

/** A column as the pandas cells see it after cleaning: text numbers read as numbers, text dates as timestamps. */
export function columnSql(table: TableInfo, name: string): string {
  const info = column(table, name);
  const ident = sqlName(name);
  if (info?.kind === 'numeric-text') {
    const text = `replace(trim(CAST(${ident} AS VARCHAR)), '\u2212', '-')`;
    const stripped = `regexp_replace(regexp_replace(${text}, ${sqlText(TO_NUMBER)}, '', 'g'), '(\\d)(st|nd|rd|th)$', '\\1')`;
    return `TRY_CAST(${stripped} AS DOUBLE)`;
  }
  if (info?.kind === 'date' && info.dtype === 'object') return `TRY_CAST(${ident} AS TIMESTAMP)`;
  return ident;
}

export function conditionSql(table: TableInfo, condition: Condition): string | undefined {
  const c = columnSql(table, condition.column);
  const text = `CAST(${c} AS VARCHAR)`;
  switch (condition.kind) {
    case 'equals':
      return typeof condition.value === 'number'
        ? `${c} = ${sqlNumber(condition.value)}`
        : `${text} = ${sqlText(condition.value)}`;
    case 'contains':
      return `contains(lower(${text}), ${sqlText(condition.value.toLowerCase())})`;
    case 'in':
      return condition.values.length ? `${text} IN (${condition.values.map(sqlText).join(', ')})` : 'false';
    case 'span':
      return undefined;
    case 'compare':
      return `${c} ${condition.op} ${sqlNumber(condition.value)}`;
    case 'between':
      return `${c} BETWEEN ${sqlNumber(condition.low)} AND ${sqlNumber(condition.high)}`;
    case 'year':
      return `year(${c}) = ${sqlNumber(condition.value)}`;
  }
}

/**
 * The WHERE clause of the rows a plan selects: its filters, and without the table's own
 * total rows ("Total") except those a filter names. Empty for every row.
 */
export function whereSql(
  table: TableInfo,
  filters: Condition[],
  totals: { keep: string[] },
  also: string[] = [],
): string | undefined {
  const parts: string[] = [];
  for (const f of filters) {
    const sql = conditionSql(table, f);
    if (sql === undefined) return undefined;
    parts.push(sql);
  }
  for (const c of table.columns) {
    const dropped = (c.totals ?? []).filter((value) => !totals.keep.includes(value));
    if (dropped.length === 0) continue;
    const ident = sqlName(c.name);
    parts.push(`(${ident} IS NULL OR CAST(${ident} AS VARCHAR) NOT IN (${dropped.map(sqlText).join(', ')}))`);
  }
  parts.push(...also);
  return parts.length ? ` WHERE ${parts.map((p) => `(${p})`).join(' AND ')}` : '';
}

/** A measure as a SQL expression per row; undefined for counting rows (the caller uses count(*)). */
export function measureSql(table: TableInfo, measure: Measure): string | undefined {
  if (measure.kind === 'rows') return undefined;
  if (measure.kind === 'column') return columnSql(table, measure.column);
  const expr = measure.columns.map((c) => `CAST(${columnSql(table, c)} AS DOUBLE)`).join(` ${measure.op} `);
  if (measure.absolute) return `abs(${expr})`;
  return measure.percent ? `(${expr}) * 100` : `(${expr})`;
}

/** DuckDB's aggregate function for each of the plan's (the same results as pandas: NULLs skipped). */
export const AGGREGATE_SQL: Record<Aggregate, string> = {
  mean: 'avg',
  sum: 'sum',
  median: 'median',
  max: 'max',
  min: 'min',
  count: 'count',
};
