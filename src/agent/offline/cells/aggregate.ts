import { z } from 'zod';
import { type Aggregate, measureLabel, type Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import type { TableInfo } from '../schema.ts';
import { labelColumn } from '../understand/roles.ts';
import { barChart, histogram } from './charts.ts';
import {
  columnsOf,
  conditionText,
  decimalsFor,
  filterLines,
  measureExpr,
  preamble,
  pyList,
  ref,
  totalsKept,
} from './code.ts';
import {
  type Finding,
  type Language,
  type PlannedCell,
  q,
  type Recipe,
  say,
  show,
  tableOf,
} from './recipe.ts';

type AggregatePlan = Extract<Plan, { kind: 'aggregate' }>;
type Selection = Pick<AggregatePlan, 'filters' | 'subset'>;

const WORDS: Record<Aggregate, [method: string, en: string, zh: string]> = {
  mean: ['mean', 'average', '平均值'],
  sum: ['sum', 'total', '总和'],
  median: ['median', 'median', '中位数'],
  max: ['max', 'highest value', '最大值'],
  min: ['min', 'lowest value', '最小值'],
  count: ['count', 'count', '个数'],
};

const Result = z.object({ value: z.number().nullable(), rows: z.number(), label: z.unknown().optional() });

/** The column that names single rows, if the table has one (a different value in nearly every row). */
export function rowNames(table: TableInfo): string | undefined {
  const label = labelColumn(table);
  return label && label.distinct >= 0.9 * (table.rows - label.missing) ? label.name : undefined;
}

/** Lines that put the rows the plan selects (filters, then a top-N subset) into `rows`. */
export function selectionLines(plan: Selection): string[] {
  const lines = filterLines(plan.filters);
  const subset = plan.subset;
  if (!subset) return lines;
  const ascending = subset.order === 'asc' ? 'True' : 'False';
  if (!subset.by) lines.push(`rows = rows.${subset.order === 'asc' ? 'tail' : 'head'}(${subset.n})`);
  else if (subset.by.kind === 'column')
    lines.push(`rows = rows.sort_values(${py(subset.by.column)}, ascending=${ascending}).head(${subset.n})`);
  else
    lines.push(
      `rows = rows.loc[(${measureExpr(subset.by)}).sort_values(ascending=${ascending}).index[:${subset.n}]]`,
    );
  return lines;
}

/** What the filters and subset kept, in words. */
export function selectionText(plan: Selection, language: Language): string {
  const parts = plan.filters.map((f) => conditionText(f, language));
  const subset = plan.subset;
  if (subset) {
    const high = subset.order === 'desc';
    parts.push(
      subset.by
        ? say(
            language,
            `the ${subset.n} rows with the ${high ? 'highest' : 'lowest'} ${q(measureLabel(subset.by))}`,
            `${q(measureLabel(subset.by))} ${high ? '最高' : '最低'}的 ${subset.n} 行`,
          )
        : say(
            language,
            `the ${high ? 'first' : 'last'} ${subset.n} rows`,
            `${high ? '前' : '最后'} ${subset.n} 行`,
          ),
    );
  }
  return parts.join(say(language, ' and ', '且'));
}

/** Columns a selection reads. */
export function selectionColumns(plan: Selection): string[] {
  return [...plan.filters.map((f) => f.column), ...(plan.subset?.by ? columnsOf(plan.subset.by) : [])];
}

/** An average, total, median, maximum or minimum of a measure over the selected rows. */
export const aggregateRecipe: Recipe<AggregatePlan> = {
  cells(plan, context, language) {
    const measure = measureLabel(plan.measure);
    const [method, word, zhWord] = WORDS[plan.aggregate];
    const keep = plan.aggregate === 'sum' || plan.aggregate === 'max' || plan.aggregate === 'min';
    const digits = decimalsFor(plan.table, plan.measure, keep);
    const written = decimalsFor(plan.table, plan.measure, true);
    const names = plan.entity ?? rowNames(plan.table);
    const used = [...columnsOf(plan.measure), ...selectionColumns(plan), ...(plan.per ? [plan.per] : [])];
    const selection = selectionText(plan, language);
    const extreme = plan.aggregate === 'max' || plan.aggregate === 'min';
    const select = selectionLines(plan).join('\n');
    const cells: PlannedCell[] = [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `The question asks for the ${word} of ${q(measure)}${plan.per ? ` per ${q(plan.per)} (totals per ${q(plan.per)}, then their ${word})` : ''}${selection ? ` over the rows where ${selection}` : ''}.`,
          `问题问的是 ${q(measure)} 的${zhWord}${plan.per ? `（先按 ${q(plan.per)} 求和，再取${zhWord}）` : ''}${selection ? `（只看 ${selection} 的行）` : ''}。`,
        ),
        code: [
          preamble(context, {
            dropTotals: totalsKept(plan),
            columns: [...used, ...(names ? [names] : [])],
          }),
          select,
          [
            plan.per
              ? `values = (${measureExpr(plan.measure)}).groupby(${ref(plan.per, 'rows')}).sum(min_count=1)`
              : `values = ${measureExpr(plan.measure)}`,
            keep || written <= digits
              ? `result = round(values.${method}(), ${digits})`
              : `result = round(values.${method}(), ${digits}) if values.count() > 1 else round(values.${method}(), ${written})  # one value: as written`,
            `print(${py(`${capital(word)} of ${measure}${plan.per ? ` per ${plan.per}` : ''} over`)}, values.count(), ${py(plan.per ? `${plan.per} values:` : 'rows:')}, result)`,
            ...(extreme && names
              ? [
                  `label = rows.loc[values.idx${plan.aggregate}(), ${py(names)}] if values.count() else None`,
                  `print(${py(`${names}:`)}, label)`,
                ]
              : []),
          ].join('\n'),
        ].join('\n\n'),
        share:
          extreme && names
            ? 'share(value=result, rows=values.count(), label=label)'
            : 'share(value=result, rows=values.count())',
      },
    ];
    const shown = [...new Set([...(names ? [names] : []), ...used])];
    if (plan.filters.length > 0 || plan.subset) {
      cells.push({
        purpose: 'check',
        analyze: say(language, 'Check which rows went into that number.', '核对一下参与计算的是哪些行。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          select,
          [
            `used = rows[${pyList(shown)}]`,
            'print(len(used), "rows used")',
            'print(used.head(30).round(2).to_string())',
          ].join('\n'),
        ].join('\n\n'),
        share: 'share(table=used.round(2) if len(used) <= 15 else None)',
      });
    }
    cells.push({
      purpose: 'chart',
      analyze: say(language, 'Chart the values behind it.', '把这些数值画成图。'),
      code: [
        preamble(context, {
          dropTotals: totalsKept(plan),
          columns: [...used, ...(names ? [names] : [])],
          plot: true,
        }),
        select,
        [
          `values = ${measureExpr(plan.measure)}`,
          names ? `chart = pd.Series(values.values, index=rows[${py(names)}].astype(str))` : 'chart = values',
          'if len(chart) <= 30:',
          indent(barChart({ title: `${measure} of the rows used`, valueLabel: measure })),
          'else:',
          indent(
            histogram({ title: `${measure} of the rows used`, valueLabel: measure }).replace(
              'chart.plot.hist',
              'values.plot.hist',
            ),
          ),
        ].join('\n'),
      ].join('\n\n'),
    });
    return cells;
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const { value, rows, label } = result.data;
    const measure = measureLabel(plan.measure);
    const [, word, zhWord] = WORDS[plan.aggregate];
    const selection = selectionText(plan, language);
    if (value === null || rows === 0)
      return {
        summary: say(
          language,
          `No row has a value of ${q(measure)}${selection ? ` where ${selection}` : ''}, so there is no ${word} to give.`,
          `没有符合条件${selection ? `（${selection}）` : ''}且 ${q(measure)} 有值的行，无法计算${zhWord}。`,
        ),
        notes: [],
        items: [],
      };
    const of =
      label !== undefined && label !== null ? say(language, ` (${show(label)})`, `（${show(label)}）`) : '';
    const finding: Finding = {
      summary: say(
        language,
        `The ${word} of ${q(measure)} is **${show(value)}**${of}, over ${rows} row${rows === 1 ? '' : 's'}${selection ? ` where ${selection}` : ''}.`,
        `${q(measure)} 的${zhWord}是 **${show(value)}**${of}，基于 ${rows} 行${selection ? `（${selection}）` : ''}。`,
      ),
      notes: [],
      items: [show(value)],
    };
    const table = tableOf(shared[1]?.table);
    if (table) finding.table = table;
    return finding;
  },
};

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function indent(code: string): string {
  return code
    .split('\n')
    .map((line) => (line ? `    ${line}` : line))
    .join('\n');
}
