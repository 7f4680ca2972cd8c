import type { Measure, Plan } from '../plan.ts';
import { lineChart } from './charts.ts';
import {
  type CodeContext,
  column,
  decimalsFor,
  filterLines,
  measureExpr,
  preamble,
  ref,
  totalsKept,
} from './code.ts';
import { type Language, type PlannedCell, say } from './recipe.ts';

type TimePlan = Extract<Plan, { kind: 'trend' | 'change' }>;

/** Periods of a date column: years when the data spans more than three years, else months. */
export function periodOf(plan: TimePlan): 'Y' | 'M' | undefined {
  const info = column(plan.table, plan.time);
  if (info?.kind !== 'date') return undefined;
  // "over the years", "yearly", "monthly" say which; else years when the data spans more than three.
  if (plan.period) return plan.period;
  const years = (Date.parse(String(info.max)) - Date.parse(String(info.min))) / (365.25 * 86_400_000);
  return Number.isFinite(years) && years <= 3 ? 'M' : 'Y';
}

/** Lines that build `series`: the measure per period (summed over rows of the same period), in time order. */
export function seriesLines(plan: TimePlan, measure: Measure, perPeriod: 'sum' | 'mean'): string[] {
  const period = periodOf(plan);
  const time = ref(plan.time, 'rows');
  const key = period === 'Y' ? `${time}.dt.year` : period === 'M' ? `${time}.dt.to_period("M")` : time;
  const digits = decimalsFor(plan.table, measure);
  const per = perPeriod === 'mean' ? 'mean()' : 'sum(min_count=1)';
  return [
    ...filterLines(plan.filters),
    `series = (${measureExpr(measure)}).groupby(${key}).${per}.dropna().sort_index().round(${digits})`,
  ];
}

/** The cell that charts the series (`series`: the lines that make it) over time. */
export function overTimeChartCell(
  context: CodeContext,
  plan: TimePlan,
  options: { used: string[]; series: string; measure: string; language: Language },
): PlannedCell {
  const { used, series, measure, language } = options;
  return {
    purpose: 'chart',
    analyze: say(language, 'Chart it over time.', '画出随时间的走势。'),
    code: [
      preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
      series,
      ['chart = series', lineChart({ title: `${measure} over ${plan.time}`, valueLabel: measure })].join(
        '\n',
      ),
    ].join('\n\n'),
  };
}
