import { z } from 'zod';
import { measureLabel, type Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import { barChart } from './charts.ts';
import { columnsOf, decimalsFor, filterLines, measureExpr, preamble, pyList, ref } from './code.ts';
import { q, type Recipe, say, show, tableOf } from './recipe.ts';

type CompareValuesPlan = Extract<Plan, { kind: 'compare-values' }>;

const Result = z.object({
  first: z.number().nullable(),
  second: z.number().nullable(),
  difference: z.number().nullable(),
  ratio: z.number().nullable(),
  table: z.unknown(),
});

/** Two named values of one column set against each other on a measure ("A or B", "A compared to B"). */
export const compareValuesRecipe: Recipe<CompareValuesPlan> = {
  cells(plan, context, language) {
    const measure = measureLabel(plan.measure);
    const [a, b] = plan.values;
    const digits = decimalsFor(plan.table, plan.measure);
    const used = [plan.column, ...columnsOf(plan.measure), ...plan.filters.map((f) => f.column)];
    const select = [
      ...filterLines(plan.filters),
      `rows = rows[${ref(plan.column, 'rows')}.isin(${pyList([a, b])})]`,
      `by_value = (${measureExpr(plan.measure)}).groupby(${ref(plan.column, 'rows')}).sum(min_count=1).reindex(${pyList([a, b])}).round(${digits})`,
    ].join('\n');
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Compare ${q(measure)} for ${q(a)} and ${q(b)} (column ${q(plan.column)}).`,
          `比较 ${q(a)} 和 ${q(b)} 的 ${q(measure)}（列 ${q(plan.column)}）。`,
        ),
        code: [
          preamble(context, { columns: used }),
          select,
          [
            'print(by_value.to_string())',
            `first, second = by_value.get(${py(a)}), by_value.get(${py(b)})`,
            `difference = round(first - second, ${digits})`,
            'ratio = round(first / second, 4) if second else None',
            'print("Difference:", difference, " Ratio:", ratio)',
          ].join('\n'),
        ].join('\n\n'),
        share:
          'share(first=first, second=second, difference=difference, ratio=ratio, table=by_value.reset_index())',
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Chart the two side by side.', '把两者并排画出来。'),
        code: [
          preamble(context, { columns: used, plot: true }),
          select,
          [
            'chart = by_value',
            barChart({ title: `${measure}: ${a} vs ${b}`, valueLabel: measure, horizontal: false }),
          ].join('\n'),
        ].join('\n\n'),
      },
    ];
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const r = result.data;
    const [a, b] = plan.values;
    const measure = measureLabel(plan.measure);
    if (r.first === null || r.second === null)
      return {
        summary: say(
          language,
          `${q(measure)} has no value for ${r.first === null ? q(a) : q(b)}, so the two cannot be compared.`,
          `${r.first === null ? q(a) : q(b)} 没有 ${q(measure)} 的值，无法比较。`,
        ),
        notes: [],
        items: [],
      };
    const higher = r.first >= r.second ? a : b;
    const lower = higher === a ? b : a;
    const facts = say(
      language,
      `${q(measure)}: ${a} ${show(r.first)}, ${b} ${show(r.second)}; difference ${show(r.difference)}${r.ratio !== null ? `, ratio ${show(r.ratio)}` : ''}.`,
      `${q(measure)}：${a} 为 ${show(r.first)}，${b} 为 ${show(r.second)}；差值 ${show(r.difference)}${r.ratio !== null ? `，比值 ${show(r.ratio)}` : ''}。`,
    );
    const table = tableOf(r.table);
    const lead = {
      'which-higher': [
        say(language, `**${higher}** has the higher ${q(measure)}.`, `**${higher}** 的 ${q(measure)} 更高。`),
        higher,
      ],
      'which-lower': [
        say(language, `**${lower}** has the lower ${q(measure)}.`, `**${lower}** 的 ${q(measure)} 更低。`),
        lower,
      ],
      difference: [
        say(
          language,
          `${a} minus ${b} is **${show(r.difference)}** in ${q(measure)}.`,
          `${a} 比 ${b} 的 ${q(measure)} 差 **${show(r.difference)}**。`,
        ),
        show(r.difference),
      ],
      ratio: [
        say(
          language,
          `${a} is **${show(r.ratio)}** times ${b} in ${q(measure)}.`,
          `${a} 的 ${q(measure)} 是 ${b} 的 **${show(r.ratio)}** 倍。`,
        ),
        show(r.ratio),
      ],
    }[plan.ask] as [string, string];
    return { summary: `${lead[0]} ${facts}`, ...(table ? { table } : {}), notes: [], items: [lead[1]] };
  },
};
