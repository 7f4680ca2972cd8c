import { z } from 'zod';
import { measureLabel, type Plan } from '../plan.ts';
import { columnsOf, preamble, totalsKept } from './code.ts';
import { overTimeChartCell, seriesLines } from './over-time.ts';
import { q, type Recipe, say, show, tableOf } from './recipe.ts';

type TrendPlan = Extract<Plan, { kind: 'trend' }>;

const Result = z.object({
  first: z.unknown(),
  last: z.unknown(),
  first_value: z.number().nullable(),
  last_value: z.number().nullable(),
  change: z.number().nullable(),
  percent: z.number().nullable(),
  peak: z.unknown(),
  peak_value: z.number().nullable(),
  low: z.unknown(),
  low_value: z.number().nullable(),
  slope: z.number().nullable(),
  periods: z.number(),
  table: z.unknown(),
});

/** A measure over time: first and last, change, peak and low, and the slope of a straight-line fit. */
export const trendRecipe: Recipe<TrendPlan> = {
  cells(plan, context, language) {
    const measure = measureLabel(plan.measure);
    const used = [plan.time, ...columnsOf(plan.measure), ...plan.filters.map((f) => f.column)];
    const series = seriesLines(plan, plan.measure, plan.aggregate === 'mean' ? 'mean' : 'sum').join('\n');
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Follow ${q(measure)} over ${q(plan.time)}.`,
          `观察 ${q(measure)} 随 ${q(plan.time)} 的变化。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used, numpy: true }),
          series,
          [
            'print(series.to_string() if len(series) <= 40 else series.iloc[[*range(10), *range(-10, 0)]].to_string())',
            'change = round(series.iloc[-1] - series.iloc[0], 2) if len(series) else None',
            'percent = round(100 * change / series.iloc[0], 2) if len(series) and series.iloc[0] else None',
            'slope = round(float(np.polyfit(range(len(series)), series.values, 1)[0]), 4) if len(series) >= 3 else None',
            'print("From", series.index[0], "to", series.index[-1], ": change", change, f"({percent}%)", " slope per period", slope)',
            'print("Peak:", series.idxmax(), series.max(), " Low:", series.idxmin(), series.min())',
          ].join('\n'),
        ].join('\n\n'),
        share: [
          'share(first=series.index[0], last=series.index[-1], first_value=series.iloc[0], last_value=series.iloc[-1],',
          '      change=change, percent=percent, peak=series.idxmax(), peak_value=series.max(), low=series.idxmin(),',
          '      low_value=series.min(), slope=slope, periods=len(series), table=series.reset_index() if len(series) <= 15 else None)',
        ].join('\n'),
      },
      overTimeChartCell(context, plan, { used, series, measure, language }),
    ];
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const r = result.data;
    const measure = measureLabel(plan.measure);
    const direction =
      r.slope === null || r.slope === 0
        ? say(language, 'moved', '变化')
        : r.slope > 0
          ? say(language, 'rose', '上升')
          : say(language, 'fell', '下降');
    const table = tableOf(r.table);
    return {
      summary: say(
        language,
        `${q(measure)} ${direction} from ${show(r.first_value)} (${show(r.first)}) to ${show(r.last_value)} (${show(r.last)}), a change of **${show(r.change)}**${r.percent !== null ? ` (${show(r.percent)}%)` : ''} over ${r.periods} periods. It peaked at ${show(r.peak_value)} (${show(r.peak)}) and was lowest at ${show(r.low_value)} (${show(r.low)}).`,
        `${q(measure)} 从 ${show(r.first_value)}（${show(r.first)}）${direction}到 ${show(r.last_value)}（${show(r.last)}），变化 **${show(r.change)}**${r.percent !== null ? `（${show(r.percent)}%）` : ''}，共 ${r.periods} 个时期。最高 ${show(r.peak_value)}（${show(r.peak)}），最低 ${show(r.low_value)}（${show(r.low)}）。`,
      ),
      ...(table ? { table } : {}),
      notes:
        r.slope !== null
          ? [
              say(
                language,
                `Straight-line slope: ${show(r.slope)} per period.`,
                `线性拟合斜率：每期 ${show(r.slope)}。`,
              ),
            ]
          : [],
      items: [show(r.change)],
    };
  },
};
