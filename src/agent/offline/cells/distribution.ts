import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { isNumeric } from '../schema.ts';
import { barChart, histogram } from './charts.ts';
import { column, filterLines, preamble, ref, totalsKept } from './code.ts';
import { q, type Recipe, say, show, tableOf } from './recipe.ts';

type DistributionPlan = Extract<Plan, { kind: 'distribution' }>;

const Numbers = z.object({ stats: z.record(z.number().nullable()), skew: z.number().nullable() });
const Categories = z.object({
  counts: z.unknown(),
  distinct: z.number(),
  top: z.unknown(),
  top_share: z.number().nullable(),
});

/** How a column's values are spread: summary statistics and a histogram, or counts per category. */
export const distributionRecipe: Recipe<DistributionPlan> = {
  cells(plan, context, language) {
    const info = column(plan.table, plan.column);
    const numeric = info !== undefined && isNumeric(info);
    const used = [plan.column, ...plan.filters.map((f) => f.column)];
    const select = [...filterLines(plan.filters), `values = ${ref(plan.column, 'rows')}.dropna()`].join('\n');
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Describe how ${q(plan.column)} is distributed.`,
          `描述 ${q(plan.column)} 的分布。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          select,
          numeric
            ? [
                'stats = values.describe().round(2)',
                'skew = round(values.skew(), 2)',
                'print(stats.to_string())',
                'print("Skewness:", skew)',
              ].join('\n')
            : [
                'counts = values.value_counts()',
                'shares = (100 * counts / counts.sum()).round(1)',
                'table = pd.DataFrame({"count": counts, "share (%)": shares})',
                'print(table.head(30).to_string())',
              ].join('\n'),
        ].join('\n\n'),
        share: numeric
          ? 'share(stats=stats.to_dict(), skew=skew)'
          : 'share(counts=table.head(15).reset_index(), distinct=len(counts), top=counts.index[0], top_share=shares.iloc[0])',
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Chart the distribution.', '画出分布图。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
          select,
          numeric
            ? [
                'chart = values',
                histogram({ title: `Distribution of ${plan.column}`, valueLabel: plan.column }),
              ].join('\n')
            : [
                'chart = values.value_counts()',
                barChart({ title: `Distribution of ${plan.column}`, valueLabel: 'rows' }),
              ].join('\n'),
        ].join('\n\n'),
      },
    ];
  },

  answer(plan, shared, language) {
    const name = q(plan.column);
    const numbers = Numbers.safeParse(shared[0]);
    if (numbers.success) {
      const s = numbers.data.stats;
      const skew = numbers.data.skew;
      const shape =
        skew === null
          ? ''
          : Math.abs(skew) < 0.5
            ? say(language, 'roughly symmetric', '大致对称')
            : skew > 0
              ? say(language, 'skewed to the right (a long tail of high values)', '右偏（高值有长尾）')
              : say(language, 'skewed to the left (a long tail of low values)', '左偏（低值有长尾）');
      return {
        summary: say(
          language,
          `${name} ranges from ${show(s.min)} to ${show(s.max)}, with median **${show(s['50%'])}** and mean ${show(s.mean)} (standard deviation ${show(s.std)}, ${show(s.count)} values); half the values lie between ${show(s['25%'])} and ${show(s['75%'])}${shape ? `. It is ${shape} (skewness ${show(skew)})` : ''}.`,
          `${name} 的范围是 ${show(s.min)} 到 ${show(s.max)}，中位数 **${show(s['50%'])}**，均值 ${show(s.mean)}（标准差 ${show(s.std)}，共 ${show(s.count)} 个值）；一半的值在 ${show(s['25%'])} 与 ${show(s['75%'])} 之间${shape ? `，分布${shape}（偏度 ${show(skew)}）` : ''}。`,
        ),
        notes: [],
        items: [show(s['50%'])],
      };
    }
    const categories = Categories.safeParse(shared[0]);
    if (!categories.success) return undefined;
    const c = categories.data;
    const table = tableOf(c.counts);
    return {
      summary: say(
        language,
        `${name} has ${c.distinct} distinct values; the most common is **${show(c.top)}** (${show(c.top_share)}% of rows).`,
        `${name} 有 ${c.distinct} 个不同的值，最常见的是 **${show(c.top)}**（占 ${show(c.top_share)}%）。`,
      ),
      ...(table ? { table } : {}),
      notes: [],
      items: [show(c.top)],
    };
  },
};
