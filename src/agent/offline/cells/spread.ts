import { z } from 'zod';
import { measureLabel, type Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import { rowNames, selectionText } from './aggregate.ts';
import { columnsOf, decimalsFor, filterLines, measureExpr, preamble, totalsKept } from './code.ts';
import { q, type Recipe, say, show } from './recipe.ts';

type SpreadPlan = Extract<Plan, { kind: 'spread' }>;

const Result = z.object({
  highest: z.number().nullable(),
  lowest: z.number().nullable(),
  difference: z.number().nullable(),
  high_name: z.unknown().optional(),
  low_name: z.unknown().optional(),
});

/** The difference between the highest and the lowest value of a measure. */
export const spreadRecipe: Recipe<SpreadPlan> = {
  cells(plan, context, language) {
    const measure = measureLabel(plan.measure);
    const names = plan.entity ?? rowNames(plan.table);
    const digits = decimalsFor(plan.table, plan.measure);
    const used = [
      ...columnsOf(plan.measure),
      ...plan.filters.map((f) => f.column),
      ...(names ? [names] : []),
    ];
    const selection = selectionText(plan, language);
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Find the highest and the lowest ${q(measure)}${selection ? ` where ${selection}` : ''}, and their difference.`,
          `找出 ${q(measure)} 的最高值和最低值${selection ? `（${selection}）` : ''}，并计算差值。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          filterLines(plan.filters).join('\n'),
          [
            `values = ${measureExpr(plan.measure)}`,
            `highest, lowest = round(values.max(), ${digits}), round(values.min(), ${digits})`,
            `difference = round(values.max() - values.min(), ${digits})`,
            ...(names
              ? [
                  `high_name, low_name = rows.loc[values.idxmax(), ${py(names)}], rows.loc[values.idxmin(), ${py(names)}]`,
                  'print("Highest:", highest, f"({high_name})", " Lowest:", lowest, f"({low_name})")',
                ]
              : ['high_name = low_name = None', 'print("Highest:", highest, " Lowest:", lowest)']),
            'print("Difference:", difference)',
          ].join('\n'),
        ].join('\n\n'),
        share:
          'share(highest=highest, lowest=lowest, difference=difference, high_name=high_name, low_name=low_name)',
      },
    ];
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success || result.data.difference === null) return undefined;
    const r = result.data;
    const measure = measureLabel(plan.measure);
    const name = (v: unknown) => (v === null || v === undefined ? '' : ` (${show(v)})`);
    return {
      summary: say(
        language,
        `The highest ${q(measure)} is ${show(r.highest)}${name(r.high_name)} and the lowest ${show(r.lowest)}${name(r.low_name)}: a difference of **${show(r.difference)}**.`,
        `${q(measure)} 最高为 ${show(r.highest)}${name(r.high_name)}，最低为 ${show(r.lowest)}${name(r.low_name)}，相差 **${show(r.difference)}**。`,
      ),
      notes: [],
      items: [show(r.difference)],
    };
  },
};
