import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import { filterLines, preamble, pyList, totalsKept } from './code.ts';
import { type Language, q, type Recipe, say, show, tableOf } from './recipe.ts';

type CorrelationPlan = Extract<Plan, { kind: 'correlation' }>;

const Result = z.object({
  pairs: z.array(z.tuple([z.string(), z.string(), z.number().nullable(), z.number().nullable()])),
  rows: z.number(),
  table: z.unknown(),
});

/** How strongly columns move together: Pearson's r (and Spearman's, which ignores scale), strongest pairs first. */
export const correlationRecipe: Recipe<CorrelationPlan> = {
  cells(plan, context, language) {
    const columns = plan.columns.slice(0, 12);
    const select = [...filterLines(plan.filters), `numbers = rows[${pyList(columns)}].dropna()`].join('\n');
    const used = [...columns, ...plan.filters.map((f) => f.column)];
    const [x, y] = columns as [string, string];
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Measure how ${columns.map(q).join(', ')} move together (Pearson's r, and Spearman's rank correlation as a check).`,
          `计算 ${columns.map(q).join('、')} 之间的相关性（皮尔逊 r，并用斯皮尔曼等级相关核对）。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          select,
          [
            'pearson = numbers.corr().round(3)',
            'spearman = numbers.corr(method="spearman").round(3)',
            'print(pearson.to_string())',
            'pairs = [(a, b, pearson.loc[a, b], spearman.loc[a, b]) for i, a in enumerate(pearson.columns) for b in pearson.columns[i + 1:]]',
            'pairs.sort(key=lambda pair: -abs(pair[2]) if pair[2] == pair[2] else 0)',
            'for a, b, r, rho in pairs[:5]:',
            '    print(f"{a} ~ {b}: r = {r}, Spearman = {rho}")',
          ].join('\n'),
        ].join('\n\n'),
        share:
          'share(pairs=pairs[:10], rows=len(numbers), table=pearson.rename_axis("column").reset_index() if len(pearson) <= 8 else None)',
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Plot the strongest pair.', '画出相关性最强的一对。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
          select,
          [
            'pearson = numbers.corr()',
            'a, b = max(((a, b) for i, a in enumerate(pearson.columns) for b in pearson.columns[i + 1:]),',
            `           key=lambda pair: abs(pearson.loc[pair]) if pearson.loc[pair] == pearson.loc[pair] else 0, default=(${py(x)}, ${py(y ?? x)}))`,
            'ax = numbers.plot.scatter(x=a, y=b, figsize=(6, 4), alpha=0.6, color="#4c78a8")',
            'ax.set_title(f"{b} against {a} (r = {pearson.loc[a, b]:.2f})")',
            'plt.savefig("correlation.png", bbox_inches="tight")',
          ].join('\n'),
        ].join('\n\n'),
      },
    ];
  },

  answer(_plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success || result.data.pairs.length === 0) return undefined;
    const [a, b, r, rho] = result.data.pairs[0]!;
    const table = tableOf(result.data.table);
    return {
      summary: `${say(
        language,
        `The strongest correlation is between ${q(a)} and ${q(b)}: r = **${show(r)}** (Spearman ${show(rho)}), over ${result.data.rows} rows — ${strength(r, language)}.`,
        `相关性最强的是 ${q(a)} 与 ${q(b)}：r = **${show(r)}**（斯皮尔曼 ${show(rho)}），基于 ${result.data.rows} 行，${strength(r, language)}。`,
      )}`,
      ...(table ? { table } : {}),
      notes: result.data.pairs.slice(1, 4).map(([x, y, value]) => `- ${x} ~ ${y}: r = ${show(value)}`),
      items: [show(r)],
    };
  },
};

function strength(r: number | null, language: Language): string {
  if (r === null) return say(language, 'undefined (a column does not vary)', '无法定义（有列没有变化）');
  const size = Math.abs(r);
  const sign = r > 0 ? say(language, 'positive', '正') : say(language, 'negative', '负');
  if (size >= 0.7) return say(language, `a strong ${sign} relationship`, `强${sign}相关`);
  if (size >= 0.4) return say(language, `a moderate ${sign} relationship`, `中等${sign}相关`);
  if (size >= 0.2) return say(language, `a weak ${sign} relationship`, `弱${sign}相关`);
  return say(language, 'little linear relationship', '几乎没有线性关系');
}
