import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { rowNames, selectionText } from './aggregate.ts';
import { filterLines, preamble, pyList, totalsKept } from './code.ts';
import { type Recipe, say, tableOf } from './recipe.ts';

type CountPlan = Extract<Plan, { kind: 'count' }>;

const Result = z.object({ count: z.number(), total: z.number() });

/** How many rows match the question's conditions. */
export const countRecipe: Recipe<CountPlan> = {
  cells(plan, context, language) {
    const selection = selectionText(plan, language);
    const names = plan.entity ?? rowNames(plan.table);
    const used = plan.filters.map((f) => f.column);
    const shown = [...new Set([...(names ? [names] : []), ...used])];
    const select = filterLines(plan.filters).join('\n');
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Count the rows${selection ? ` where ${selection}` : ''}.`,
          `统计${selection ? `满足 ${selection} 的` : ''}行数。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          select,
          ['count = len(rows)', 'print("Rows that match:", count, "of", len(df))'].join('\n'),
        ].join('\n\n'),
        share: 'share(count=count, total=len(df))',
      },
      {
        purpose: 'check',
        analyze: say(language, 'List the rows that matched, to check them.', '列出匹配的行，核对一下。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          select,
          [`matched = rows[${pyList(shown)}]`, 'print(matched.head(40).round(2).to_string())'].join('\n'),
        ].join('\n\n'),
        share: 'share(table=matched.round(2) if len(matched) <= 15 else None)',
      },
    ];
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const { count, total } = result.data;
    const selection = selectionText(plan, language);
    const table = tableOf(shared[1]?.table);
    return {
      summary: say(
        language,
        `**${count}** of the ${total} rows${selection ? ` have ${selection}` : ''}.`,
        `${total} 行中有 **${count}** 行${selection ? `满足 ${selection}` : ''}。`,
      ),
      ...(table ? { table } : {}),
      notes: [],
      items: [String(count)],
    };
  },
};
