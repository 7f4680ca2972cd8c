import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { selectionText } from './aggregate.ts';
import { filterLines, preamble, pyList } from './code.ts';
import { q, type Recipe, say, show, tableOf } from './recipe.ts';

type LookupPlan = Extract<Plan, { kind: 'lookup' }>;

const Result = z.object({ found: z.array(z.array(z.unknown())), rows: z.number() });

/** The value(s) of the asked column(s) in the rows the question picks out. */
export const lookupRecipe: Recipe<LookupPlan> = {
  cells(plan, context, language) {
    const selection = selectionText(plan, language);
    const used = plan.filters.map((f) => f.column);
    const shown = [...new Set([...plan.targets, ...used])];
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Find the row${selection ? ` where ${selection}` : ''} and read ${plan.targets.map(q).join(', ')}.`,
          `找到${selection ? `满足 ${selection} 的` : ''}行，读取 ${plan.targets.map(q).join('、')}。`,
        ),
        code: [
          preamble(context, { columns: [...used, ...plan.targets] }),
          filterLines(plan.filters).join('\n'),
          [`found = rows[${pyList(shown)}]`, 'print(found.head(30).to_string())'].join('\n'),
        ].join('\n\n'),
        share: `share(found=found[${pyList(plan.targets)}].head(30).values.tolist(), rows=len(found), table=found.head(15))`,
      },
    ];
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const { found, rows } = result.data;
    const selection = selectionText(plan, language);
    if (rows === 0)
      return {
        summary: say(language, `No row has ${selection}.`, `没有满足 ${selection} 的行。`),
        notes: [],
        items: [],
      };
    const items = [...new Set(found.flatMap((row) => row.map(show)))];
    const what = plan.targets.map(q).join(', ');
    const table = tableOf(shared[0]?.table);
    return {
      summary: say(
        language,
        `Where ${selection}, ${what} ${rows === 1 && plan.targets.length === 1 ? 'is' : 'are'} **${items.join(', ')}**${rows > 1 ? ` (${rows} rows)` : ''}.`,
        `在 ${selection} 的行中，${what} 为 **${items.join('、')}**${rows > 1 ? `（${rows} 行）` : ''}。`,
      ),
      ...(table && rows > 1 ? { table } : {}),
      notes: [],
      items,
    };
  },
};
