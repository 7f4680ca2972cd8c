import { measureLabel, type Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import type { TableInfo } from '../schema.ts';
import { capital, rowNames, selectionText } from './aggregate.ts';
import { barChart, histogram } from './charts.ts';
import { type CodeContext, decimalsFor, largeFileNote, sqlName, totalsKept } from './code.ts';
import { entityRepeats, rankedName } from './ranking.ts';
import { type Language, type PlannedCell, q, say } from './recipe.ts';
import { AGGREGATE_SQL, columnSql, measureSql, whereSql } from './sql.ts';

/**
 * Cells for a file too large to load whole (docs/spec.md#data-size, docs/architecture.md "Large files"):
 * the question's aggregate, count, ranking or group comparison runs as SQL in DuckDB, out of
 * core, and only the result comes back to pandas; charts read a sample. Each cell shares the
 * same values as its pandas twin, so the recipe's own `answer()` reads them. Undefined for a
 * plan SQL does not cover here: its pandas cells then read only the columns they use.
 */
export function largeFileCells(
  plan: Plan,
  context: CodeContext,
  language: Language,
): PlannedCell[] | undefined {
  if (plan.kind === 'profile' || !plan.table.source) return undefined;
  switch (plan.kind) {
    case 'aggregate':
      return aggregateCells(plan, context, language);
    case 'count':
      return countCells(plan, context, language);
    case 'rank':
      return rankCells(plan, context, language);
    case 'compare-groups':
      return groupCells(plan, context, language);
    default:
      return undefined;
  }
}

/** Rows a chart of single values reads at most (a repeatable sample of the selected rows). */
const CHART_SAMPLE_ROWS = 10_000;

function start(context: CodeContext, uses: { plot?: boolean } = {}): string {
  const imports = [
    'import duckdb',
    ...(uses.plot ? ['import matplotlib.pyplot as plt'] : []),
    'import pandas as pd',
  ].join('\n');
  return [imports, `# ${largeFileNote(context.table)}: DuckDB computes this out of core`].join('\n\n\n');
}

function from(table: TableInfo): string {
  return ` FROM ${table.source}`;
}

type AggregatePlan = Extract<Plan, { kind: 'aggregate' }>;

function aggregateCells(
  plan: AggregatePlan,
  context: CodeContext,
  language: Language,
): PlannedCell[] | undefined {
  const { table } = plan;
  const m = measureSql(table, plan.measure);
  const subset = plan.subset;
  // The last rows of the table (a subset by position from the end) stay with pandas.
  if (m === undefined || (subset && !subset.by && subset.order === 'asc')) return undefined;
  const where = whereSql(table, plan.filters, totalsKept(plan));
  if (where === undefined) return undefined;
  const subsetBy = subset?.by ? measureSql(table, subset.by) : undefined;
  if (subset?.by && subsetBy === undefined) return undefined;
  const names = plan.entity ?? rowNames(table);
  const nameSql = names ? columnSql(table, names) : 'NULL';
  const per = plan.per ? columnSql(table, plan.per) : undefined;
  const limit = subset
    ? `${subsetBy ? ` ORDER BY ${subsetBy} ${subset.order === 'asc' ? 'ASC' : 'DESC'} NULLS LAST` : ''} LIMIT ${subset.n}`
    : '';
  const rows = `(SELECT ${m} AS m, ${nameSql} AS label${per ? `, ${per} AS per` : ''}${from(table)}${where}${limit})`;
  const values = per ? `(SELECT sum(m) AS m FROM ${rows} WHERE per IS NOT NULL GROUP BY per)` : rows;
  const fn = AGGREGATE_SQL[plan.aggregate];
  const extreme = plan.aggregate === 'max' || plan.aggregate === 'min';
  const keep = plan.aggregate === 'sum' || extreme;
  const digits = decimalsFor(table, plan.measure, keep);
  const measure = measureLabel(plan.measure);
  const word = {
    mean: 'average',
    sum: 'total',
    median: 'median',
    max: 'highest value',
    min: 'lowest value',
    count: 'count',
  }[plan.aggregate];
  const labelSql = extreme && names && !per ? `arg_${plan.aggregate}(label, m)` : 'NULL';
  const selection = selectionText(plan, language);
  const compute: PlannedCell = {
    purpose: 'compute',
    analyze: say(
      language,
      `The question asks for the ${word} of ${q(measure)}${plan.per ? ` per ${q(plan.per)}` : ''}${selection ? ` over the rows where ${selection}` : ''}. The file is too large to load whole: DuckDB computes it.`,
      `问题问的是 ${q(measure)} 的${word}${selection ? `（只看 ${selection} 的行）` : ''}。文件太大，无法整体载入：由 DuckDB 计算。`,
    ),
    code: [
      start(context),
      [
        `value, count, label = duckdb.sql(${py(`SELECT ${fn}(m), count(m), ${labelSql} FROM ${values}`)}).fetchone()`,
        `result = round(float(value), ${digits}) if value is not None else None`,
        `print(${py(`${capital(word)} of ${measure}${plan.per ? ` per ${plan.per}` : ''} over`)}, count, ${py(plan.per ? `${plan.per} values:` : 'rows:')}, result)`,
        ...(extreme && names && !per ? [`print(${py(`${names}:`)}, label)`] : []),
      ].join('\n'),
    ].join('\n\n'),
    share:
      extreme && names && !per
        ? 'share(value=result, rows=count, label=label)'
        : 'share(value=result, rows=count)',
  };
  const chart: PlannedCell = {
    purpose: 'chart',
    analyze: say(language, 'Chart a sample of the values behind it.', '把其中一部分数值（抽样）画成图。'),
    code: [
      start(context, { plot: true }),
      [
        `values = duckdb.sql(${py(`SELECT m FROM ${rows} WHERE m IS NOT NULL USING SAMPLE reservoir(${CHART_SAMPLE_ROWS} ROWS) REPEATABLE (42)`)}).df()["m"]`,
        'chart = values',
        histogram({ title: `${measure} of the rows used (sample)`, valueLabel: measure }),
      ].join('\n'),
    ].join('\n\n'),
  };
  return [compute, chart];
}

type CountPlan = Extract<Plan, { kind: 'count' }>;

function countCells(plan: CountPlan, context: CodeContext, language: Language): PlannedCell[] | undefined {
  const { table } = plan;
  const where = whereSql(table, plan.filters, totalsKept(plan));
  const all = whereSql(table, [], totalsKept(plan));
  if (where === undefined || all === undefined) return undefined;
  const selection = selectionText(plan, language);
  const names = plan.entity ?? rowNames(table);
  const shown = [...new Set([...(names ? [names] : []), ...plan.filters.map((f) => f.column)])];
  const shownSql = shown.length ? shown.map(sqlName).join(', ') : '*';
  return [
    {
      purpose: 'compute',
      analyze: say(
        language,
        `Count the rows${selection ? ` where ${selection}` : ''}, with DuckDB: the file is too large to load whole.`,
        `用 DuckDB 统计${selection ? `满足 ${selection} 的` : ''}行数：文件太大，无法整体载入。`,
      ),
      code: [
        start(context),
        [
          `count, total = duckdb.sql(${py(`SELECT count(*) FILTER (WHERE ${where ? where.slice(' WHERE '.length) : 'true'}), count(*)${from(table)}${all}`)}).fetchone()`,
          'print("Rows that match:", count, "of", total)',
        ].join('\n'),
      ].join('\n\n'),
      share: 'share(count=count, total=total)',
    },
    {
      purpose: 'check',
      analyze: say(
        language,
        'List the first rows that matched, to check them.',
        '列出前几行匹配的行，核对一下。',
      ),
      code: [
        start(context),
        [
          `matched = duckdb.sql(${py(`SELECT ${shownSql}${from(table)}${where} LIMIT 40`)}).df()`,
          'print(matched.round(2).to_string())',
        ].join('\n'),
      ].join('\n\n'),
      share: 'share(table=matched.round(2) if len(matched) <= 15 else None)',
    },
  ];
}

type RankPlan = Extract<Plan, { kind: 'rank' }>;

/** The ranking as SQL: one row per entity (or per row when entities do not repeat), best first. */
function rankingSql(plan: RankPlan): string | undefined {
  const { table } = plan;
  const where = whereSql(table, plan.filters, totalsKept(plan), [`${sqlName(plan.entity)} IS NOT NULL`]);
  if (where === undefined) return undefined;
  const entity = columnSql(table, plan.entity);
  const m = measureSql(table, plan.measure);
  if (m === undefined)
    return `SELECT ${entity} AS entity, count(*) AS value${from(table)}${where} GROUP BY 1`;
  if (!entityRepeats(plan)) return `SELECT ${entity} AS entity, ${m} AS value${from(table)}${where}`;
  const per = plan.perEntity === 'mean' ? 'avg' : 'sum';
  return `SELECT ${entity} AS entity, ${per}(${m}) AS value${from(table)}${where} GROUP BY 1`;
}

function rankCells(plan: RankPlan, context: CodeContext, language: Language): PlannedCell[] | undefined {
  const ranking = rankingSql(plan);
  if (ranking === undefined) return undefined;
  const high = plan.order === 'desc';
  const direction = high ? 'DESC' : 'ASC';
  const by = rankedName(plan.measure);
  const digits = decimalsFor(plan.table, plan.measure);
  const kept = Math.max(plan.n, 50);
  const ordered = (limit: number) =>
    `WITH ranked AS (${ranking}) SELECT entity, value FROM ranked WHERE value IS NOT NULL ORDER BY value ${direction}, entity LIMIT ${limit}`;
  const toSeries = [
    `ranked = pd.Series(top["value"].astype(float).values, index=pd.Index(top["entity"], name=${py(plan.entity)}), name=${py(by)}).round(${digits})`,
  ];
  const versus =
    plan.versus === 'other-end'
      ? [
          `last, last_value = duckdb.sql(${py(`WITH ranked AS (${ranking}) SELECT entity, value FROM ranked WHERE value IS NOT NULL ORDER BY value ${high ? 'ASC' : 'DESC'}, entity DESC LIMIT 1`)}).fetchone()`,
          `versus = round(ranked.iloc[0] - round(float(last_value), ${digits}), 2)`,
          'other = last',
          `print("Difference to the other end (", other, "):", versus)`,
        ]
      : plan.versus === 'average'
        ? [
            `(mean,) = duckdb.sql(${py(`WITH ranked AS (${ranking}) SELECT avg(round(value, ${digits})) FROM ranked WHERE value IS NOT NULL`)}).fetchone()`,
            'versus = round(ranked.iloc[0] - mean, 2)',
            'other = round(mean, 2)',
            'print("Difference to the average (", other, "):", versus)',
          ]
        : ['versus, other = None, None'];
  const selection = selectionText(plan, language);
  return [
    {
      purpose: 'compute',
      analyze: say(
        language,
        `Rank ${q(plan.entity)} by ${by === 'rows' ? 'the number of rows' : q(by)}, ${high ? 'highest' : 'lowest'} first${selection ? `, over the rows where ${selection}` : ''}. The file is too large to load whole: DuckDB ranks it.`,
        `按 ${by === 'rows' ? '行数' : q(by)} 对 ${q(plan.entity)} 排序（${high ? '从高到低' : '从低到高'}）${selection ? `，只看 ${selection} 的行` : ''}。文件太大，无法整体载入：由 DuckDB 排序。`,
      ),
      code: [
        start(context),
        [
          `top = duckdb.sql(${py(ordered(kept))}).df()`,
          ...toSeries,
          'print(ranked.head(15).to_string())',
          'first = ranked[ranked == ranked.iloc[0]].index.tolist() if len(ranked) else []',
          ...(plan.versus
            ? [
                'if len(ranked):',
                ...versus.map((line) => `    ${line}`),
                'else:',
                '    versus, other = None, None',
              ]
            : versus),
        ].join('\n'),
      ].join('\n\n'),
      share: [
        `share(first=first, value=ranked.iloc[0] if len(ranked) else None, order=ranked.index[:${kept}].tolist(),`,
        `      values=ranked.values[:${kept}].tolist(), versus=versus, other=other, ranking=ranked.head(15).reset_index())`,
      ].join('\n'),
    },
    {
      purpose: 'chart',
      analyze: say(language, 'Chart the ranking.', '把排名画成图。'),
      code: [
        start(context, { plot: true }),
        [
          `top = duckdb.sql(${py(ordered(15))}).df()`,
          ...toSeries,
          'chart = ranked',
          barChart({ title: `${by} by ${plan.entity}`, valueLabel: by }),
        ].join('\n'),
      ].join('\n\n'),
    },
  ];
}

type GroupsPlan = Extract<Plan, { kind: 'compare-groups' }>;

function groupCells(plan: GroupsPlan, context: CodeContext, language: Language): PlannedCell[] | undefined {
  const { table } = plan;
  // Comparisons within strata (Simpson's paradox) stay with the pandas cells.
  if (plan.strata.length > 0) return undefined;
  const where = whereSql(table, plan.filters, totalsKept(plan), [
    `${columnSql(table, plan.group)} IS NOT NULL`,
  ]);
  if (where === undefined) return undefined;
  const m = measureSql(table, plan.outcome) ?? '1';
  const method = plan.aggregate;
  const value = plan.aggregate === 'count' ? 'count(*)' : `${AGGREGATE_SQL[plan.aggregate]}(${m})`;
  const counted = plan.aggregate === 'count' ? 'count(*)' : `count(${m})`;
  const digits = decimalsFor(table, plan.outcome);
  const outcome = measureLabel(plan.outcome);
  const group = columnSql(table, plan.group);
  const counts = method === 'count' ? '' : `, ${counted} AS "count"`;
  const query = `SELECT ${group} AS ${sqlName(plan.group)}, ${value} AS ${sqlName(method)}${counts}${from(table)}${where} GROUP BY 1 ORDER BY 1`;
  const summary = `summary = duckdb.sql(${py(query)}).df().set_index(${py(plan.group)}).round(${digits})`;
  const selection = selectionText(plan, language);
  return [
    {
      purpose: 'compute',
      analyze: say(
        language,
        `Compare ${q(outcome)} (${method}) across the groups of ${q(plan.group)}${selection ? `, over the rows where ${selection}` : ''}. The file is too large to load whole: DuckDB groups it.`,
        `按 ${q(plan.group)} 分组，比较 ${q(outcome)}（${method}）${selection ? `（只看 ${selection} 的行）` : ''}。文件太大，无法整体载入：由 DuckDB 分组计算。`,
      ),
      code: [start(context), [summary, 'print(summary.to_string())'].join('\n')].join('\n\n'),
      share: 'share(summary=summary.reset_index())',
    },
    {
      purpose: 'chart',
      analyze: say(language, 'Chart the groups.', '画出分组结果。'),
      code: [
        start(context, { plot: true }),
        [
          summary,
          `chart = summary[${py(method)}]`,
          barChart({
            title: `${outcome} by ${plan.group}`,
            valueLabel: `${method} of ${outcome}`,
            horizontal: false,
          }),
        ].join('\n'),
      ].join('\n\n'),
    },
  ];
}
