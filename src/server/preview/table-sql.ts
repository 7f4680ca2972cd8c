import type { ColumnType } from '../../contract/preview.ts';
import type { TableQuery } from '../../contract/table-query.ts';

/**
 * The SQL of a table query (docs/spec.md#table-queries), pure: names are checked against the
 * table's own columns and then quoted; every value the user sent is a bound parameter, never
 * part of the text. The table is `t`, whose `rowid` is the row's place in the file, so ties
 * keep the file's order and every page of one query sees the same order.
 */
export interface SqlColumn {
  name: string;
  /** DuckDB's type name (`BIGINT`, `DECIMAL(18,3)`, `VARCHAR`, …). */
  sqlType: string;
}

/** A query the table cannot answer, with the parameter at fault (a 400 for the client). */
export class TableQueryProblem extends Error {
  constructor(
    message: string,
    readonly param: 'sort' | 'search' | 'filter',
  ) {
    super(message);
    this.name = 'TableQueryProblem';
  }
}

export interface TableSql {
  /** `WHERE …` or empty. */
  where: string;
  /** `ORDER BY …` (always ends with the file order). */
  orderBy: string;
  params: Array<string | number>;
}

const NUMERIC =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/;

export const isNumericSql = (sqlType: string) => NUMERIC.test(sqlType);

/** A column's type as previews name it. */
export function columnTypeOf(sqlType: string): ColumnType {
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|U)/.test(sqlType)) return 'integer';
  if (/^(FLOAT|DOUBLE|DECIMAL)/.test(sqlType)) return 'number';
  if (sqlType === 'BOOLEAN') return 'boolean';
  if (/^(DATE|TIMESTAMP|TIME)/.test(sqlType)) return 'date';
  if (sqlType === 'BLOB') return 'bytes';
  if (/^(STRUCT|MAP|UNION)|\[\]$/.test(sqlType)) return 'json';
  return 'string';
}

export const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The columns as a page shows them: dates and times as their text (not a JavaScript `Date` at
 * midnight UTC), decimals and huge integers as doubles.
 */
export function selectList(columns: readonly SqlColumn[]): string {
  if (columns.length === 0) return '*';
  return columns
    .map((c) => {
      const name = quoteName(c.name);
      if (/^(DATE|TIME)/.test(c.sqlType)) return `CAST(${name} AS VARCHAR) AS ${name}`;
      if (/^(DECIMAL|HUGEINT|UHUGEINT)/.test(c.sqlType)) return `CAST(${name} AS DOUBLE) AS ${name}`;
      return name;
    })
    .join(', ');
}

export function tableSql(columns: readonly SqlColumn[], query: TableQuery): TableSql {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const known = (name: string, param: TableQueryProblem['param']) => {
    const column = byName.get(name);
    if (!column)
      throw new TableQueryProblem(
        `there is no column ${JSON.stringify(name.slice(0, 100))}; the columns are ${columns
          .slice(0, 50)
          .map((c) => JSON.stringify(c.name))
          .join(', ')}`,
        param,
      );
    return column;
  };
  const params: Array<string | number> = [];
  const bind = (value: string | number) => `$${params.push(value)}`;
  const text = (column: SqlColumn) => `lower(CAST(${quoteName(column.name)} AS VARCHAR))`;
  const conditions: string[] = [];

  if (query.search !== undefined && query.search !== '' && columns.length > 0) {
    const at = bind(query.search.toLowerCase());
    conditions.push(`(${columns.map((c) => `contains(${text(c)}, ${at})`).join(' OR ')})`);
  }
  for (const filter of query.filters ?? []) {
    const column = known(filter.column, 'filter');
    const name = quoteName(column.name);
    const numeric = isNumericSql(column.sqlType);
    if (filter.op === 'contains')
      conditions.push(`contains(${text(column)}, ${bind(filter.value.toLowerCase())})`);
    else if (filter.op === 'equals') {
      if (numeric) {
        const number = typeof filter.value === 'number' ? filter.value : Number(filter.value.trim());
        if (!Number.isFinite(number) || (typeof filter.value === 'string' && filter.value.trim() === ''))
          throw new TableQueryProblem(
            `column ${JSON.stringify(column.name)} holds numbers; ${JSON.stringify(String(filter.value).slice(0, 100))} is not one`,
            'filter',
          );
        conditions.push(`${name} = ${bind(number)}`);
      } else conditions.push(`CAST(${name} AS VARCHAR) = ${bind(String(filter.value))}`);
    } else {
      if (!numeric)
        throw new TableQueryProblem(
          `a range needs a column of numbers; ${JSON.stringify(column.name)} is ${column.sqlType}`,
          'filter',
        );
      if (filter.min !== undefined) conditions.push(`${name} >= ${bind(filter.min)}`);
      if (filter.max !== undefined) conditions.push(`${name} <= ${bind(filter.max)}`);
    }
  }
  const order: string[] = [];
  if (query.sort !== undefined)
    order.push(`${quoteName(known(query.sort, 'sort').name)} ${query.desc ? 'DESC' : 'ASC'} NULLS LAST`);
  order.push('rowid');
  return {
    where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '',
    orderBy: `ORDER BY ${order.join(', ')}`,
    params,
  };
}
