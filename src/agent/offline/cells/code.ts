import type { Condition, Measure } from '../plan.ts';
import { measureColumns } from '../plan.ts';
import { py, pythonSource } from '../python-source.ts';
import type { ColumnInfo, TableInfo } from '../schema.ts';

/**
 * Pieces of the Python the offline analyst writes: loading a table the way the look cell
 * read it, cleaning only the columns a cell uses, filters and measures as pandas
 * expressions. Each cell is a whole program (cells run in fresh processes by default).
 */

export interface CodeContext {
  table: TableInfo;
}

export function column(table: TableInfo, name: string): ColumnInfo | undefined {
  return table.columns.find((c) => c.name === name);
}

/** `df["name"]` (or another frame's). */
export function ref(name: string, frame = 'df'): string {
  return `${frame}[${py(name)}]`;
}

/**
 * The statement that reads the table into `df`. A file too large to load whole (one with a
 * DuckDB `source`) is read through DuckDB: only the columns named, or a sample of the rows.
 */
export function readLine(table: TableInfo, large: { columns?: string[]; sample?: boolean } = {}): string {
  if (table.source) return largeReadLines(table, table.source, large);
  const file = py(table.file);
  switch (table.reader) {
    case 'csv': {
      const options = [
        table.sep && table.sep !== ',' ? `sep=${py(table.sep)}` : '',
        table.encoding && table.encoding !== 'utf-8' ? `encoding=${py(table.encoding)}` : '',
      ].filter(Boolean);
      return `df = pd.read_csv(${[file, ...options].join(', ')})`;
    }
    case 'excel':
      return `df = pd.read_excel(${file}${table.sheet !== undefined ? `, sheet_name=${py(table.sheet)}` : ''})`;
    case 'json':
      return `df = pd.json_normalize(json.load(open(${file}, encoding="utf-8-sig")))`;
    case 'jsonl':
      return `df = pd.read_json(${file}, lines=True)`;
    case 'parquet':
      return `df = pd.read_parquet(${file})`;
    case 'sqlite':
      return [
        `with sqlite3.connect(${file}) as conn:`,
        `    df = pd.read_sql(${py(`SELECT * FROM "${(table.table ?? '').replace(/"/g, '""')}"`)}, conn)`,
      ].join('\n');
  }
}

/** Rows of a large file a sampled read keeps (for profiles and charts). */
export const SAMPLE_ROWS = 100_000;

function largeReadLines(
  table: TableInfo,
  source: string,
  large: { columns?: string[]; sample?: boolean },
): string {
  const names = [...new Set(large.columns ?? [])].filter((name) => column(table, name) !== undefined);
  const selected = large.sample || names.length === 0 ? '*' : names.map(sqlName).join(', ');
  const sample = large.sample ? ` USING SAMPLE reservoir(${SAMPLE_ROWS} ROWS) REPEATABLE (42)` : '';
  return [
    `# ${largeFileNote(table)}: DuckDB reads ${large.sample ? `a sample of ${SAMPLE_ROWS} rows` : names.length ? 'only the columns used' : 'it'}`,
    `df = duckdb.sql(${py(`SELECT ${selected} FROM ${source}${sample}`)}).df()`,
  ].join('\n');
}

/** "sales.csv is 312 MB (6500000 rows), too large to load whole" */
export function largeFileNote(table: TableInfo): string {
  const size =
    table.bytes !== undefined ? ` is ${Math.round(table.bytes / 2 ** 20)} MB (${table.rows} rows)` : '';
  return `${table.file}${size}, too large to load whole`;
}

/** `"name"` as a DuckDB identifier. */
export function sqlName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The start of a cell: imports, the helpers it uses, the table read into `df`, and the
 * columns it uses made numeric or dates where the file writes them as text.
 */
export function preamble(
  context: CodeContext,
  uses: {
    columns: string[];
    plot?: boolean;
    numpy?: boolean;
    /** For a large file, a sample of its rows rather than every row of the columns used. */
    sample?: boolean;
    /** Leave out the table's own total rows ("Total", "All"), except values named here. */
    dropTotals?: { keep: string[] };
  },
): string {
  const { table } = context;
  const used = uses.columns
    .map((name) => column(table, name))
    .filter((c): c is ColumnInfo => c !== undefined);
  const numericText = used.filter((c) => c.kind === 'numeric-text');
  const textDates = used.filter((c) => c.kind === 'date' && c.dtype === 'object');
  const standard = [
    table.reader === 'json' ? 'import json' : '',
    table.reader === 'sqlite' ? 'import sqlite3' : '',
  ];
  const engine = table.source ? ['import duckdb'] : [];
  const libraries = [
    uses.plot ? 'import matplotlib.pyplot as plt' : '',
    uses.numpy ? 'import numpy as np' : '',
    'import pandas as pd',
  ];
  const imports = [standard, [...engine, ...libraries]]
    .map((group) => group.filter(Boolean).join('\n'))
    .filter(Boolean);
  const helpers = numericText.length ? [pythonSource('to_number.py').trim()] : [];
  const cleaning = [
    ...numericText.map((c) => `${ref(c.name)} = to_number(${ref(c.name)})`),
    ...textDates.map((c) => `${ref(c.name)} = pd.to_datetime(${ref(c.name)}, errors="coerce")`),
  ];
  const cleaningNote = cleaning.length ? [`# ${describeCleaning(numericText, textDates)}`, ...cleaning] : [];
  const read = readLine(table, { columns: uses.columns, ...(uses.sample ? { sample: true } : {}) });
  const body = [read, ...cleaningNote, ...totalRowLines(table, uses.dropTotals)].join('\n');
  return [imports.join('\n\n'), ...helpers, body].join('\n\n\n');
}

/** Lines that drop the rows summing up the others, so an aggregate does not count them twice. */
function totalRowLines(table: TableInfo, drop: { keep: string[] } | undefined): string[] {
  if (!drop) return [];
  const lines: string[] = [];
  for (const c of table.columns) {
    const totals = (c.totals ?? []).filter((value) => !drop.keep.includes(value));
    if (totals.length === 0) continue;
    lines.push(`df = df[~${ref(c.name)}.isin(${pyList(totals)})]`);
  }
  return lines.length
    ? ['# The table has its own total row(s): leave them out, or they are counted twice', ...lines]
    : [];
}

function describeCleaning(numbers: ColumnInfo[], dates: ColumnInfo[]): string {
  const parts: string[] = [];
  if (numbers.length)
    parts.push(`${list(numbers)} ${numbers.length === 1 ? 'is' : 'are'} written as text: read as numbers`);
  if (dates.length) parts.push(`${list(dates)} read as dates`);
  return parts.join('; ');
}

function list(columns: ColumnInfo[]): string {
  return columns.map((c) => JSON.stringify(c.name)).join(', ');
}

/** Total rows to keep: those a filter names ("the Total row"), for `preamble`'s dropTotals. */
export function totalsKept(plan: { filters: Condition[] }): { keep: string[] } {
  const keep = plan.filters.flatMap((f) =>
    f.kind === 'equals' && typeof f.value === 'string' ? [f.value] : f.kind === 'in' ? f.values : [],
  );
  return { keep };
}

/** Lines that keep the rows matching every condition, from `from` into `into`. */
export function filterLines(filters: Condition[], from = 'df', into = 'rows'): string[] {
  if (filters.length === 0) return [`${into} = ${from}`];
  return filters.map(
    (f, i) => `${into} = ${i === 0 ? from : into}[${conditionExpr(f, i === 0 ? from : into)}]`,
  );
}

export function conditionExpr(condition: Condition, frame: string): string {
  const c = ref(condition.column, frame);
  switch (condition.kind) {
    case 'equals':
      return `${c} == ${typeof condition.value === 'number' ? num(condition.value) : py(condition.value)}`;
    case 'contains':
      return `${c}.astype(str).str.contains(${py(condition.value)}, case=False, regex=False)`;
    case 'in':
      return `${c}.isin(${pyList(condition.values)})`;
    case 'span':
      return `(${frame}.index >= ${frame}.index[${c} == ${py(condition.from)}].min()) & (${frame}.index <= ${frame}.index[${c} == ${py(condition.to)}].max())`;
    case 'compare':
      return `${c} ${condition.op} ${num(condition.value)}`;
    case 'between':
      return `${c}.between(${num(condition.low)}, ${num(condition.high)})`;
    case 'year':
      return `${c}.dt.year == ${num(condition.value)}`;
  }
}

/** A condition in words, for prose and the answer. */
export function conditionText(condition: Condition, language: 'en' | 'zh'): string {
  const name = `“${condition.column}”`;
  const zh = language === 'zh';
  switch (condition.kind) {
    case 'equals':
      return `${name} = ${typeof condition.value === 'number' ? num(condition.value) : `“${condition.value}”`}`;
    case 'contains':
      return zh ? `${name} 包含 “${condition.value}”` : `${name} contains “${condition.value}”`;
    case 'in':
      return `${name} ${zh ? '为' : 'is'} ${condition.values.map((v) => `“${v}”`).join(zh ? '或' : ' or ')}`;
    case 'span':
      return zh
        ? `${name} 从 “${condition.from}” 到 “${condition.to}” 的行`
        : `the rows from ${name} “${condition.from}” to “${condition.to}”`;
    case 'compare':
      return `${name} ${{ '>': '>', '>=': '≥', '<': '<', '<=': '≤' }[condition.op]} ${num(condition.value)}`;
    case 'between':
      return zh
        ? `${name} 在 ${num(condition.low)} 到 ${num(condition.high)} 之间`
        : `${name} from ${num(condition.low)} to ${num(condition.high)}`;
    case 'year':
      return zh ? `${name} 在 ${num(condition.value)} 年` : `${name} in ${num(condition.value)}`;
  }
}

/** A measure as a pandas expression on a frame: a column, or columns combined. */
export function measureExpr(measure: Measure, frame = 'rows'): string {
  if (measure.kind === 'rows') return `${frame}.index.to_series()`;
  if (measure.kind === 'column') return ref(measure.column, frame);
  const expr = measure.columns.map((c) => ref(c, frame)).join(` ${measure.op} `);
  if (measure.absolute) return `(${expr}).abs()`;
  return measure.percent ? `(${expr}) * 100` : expr;
}

/** The columns a measure reads. */
export function columnsOf(measure: Measure): string[] {
  return measureColumns(measure);
}

/** Decimals to round a value to: two, or four for values below 1 (rates, shares). */
export function decimalsFor(table: TableInfo, measure: Measure, keepWritten = false): number {
  if (measure.kind === 'column') {
    const info = column(table, measure.column);
    // Sums, maxima and single values keep the decimals the data is written with.
    if (keepWritten && info?.decimals !== undefined) return Math.max(2, info.decimals);
    const max = Math.max(Math.abs(Number(info?.min ?? 0)), Math.abs(Number(info?.max ?? 0)));
    if (info && Number.isFinite(max) && max <= 1 && max > 0) return 4;
  }
  return 2;
}

/** A Python list of strings. */
export function pyList(items: string[]): string {
  return `[${items.map(py).join(', ')}]`;
}

/** A number as a Python literal. */
export function num(value: number): string {
  return String(value);
}

/** Safe file-name part for a chart: "sales by region" → sales_by_region. */
export function slug(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 40) || 'chart'
  );
}
