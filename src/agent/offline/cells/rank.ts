import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { selectionText } from './aggregate.ts';
import { barChart } from './charts.ts';
import { columnsOf, preamble, totalsKept } from './code.ts';
import { entityRepeats, rankedName, rankingLines } from './ranking.ts';
import { type PlannedCell, q, type Recipe, say, show, tableOf } from './recipe.ts';

type RankPlan = Extract<Plan, { kind: 'rank' }>;

const Result = z.object({
  first: z.array(z.unknown()),
  value: z.number().nullable(),
  order: z.array(z.unknown()),
  values: z.array(z.number().nullable()),
  versus: z.number().nullable().optional(),
  other: z.unknown().optional(),
  ranking: z.unknown(),
});

/** "Which X has the highest Y": the measure per entity, ordered; ties for first all named. */
export const rankRecipe: Recipe<RankPlan> = {
  cells(plan, context, language) {
    const by = rankedName(plan.measure);
    const high = plan.order === 'desc';
    const perEntity = plan.perEntity ?? 'sum';
    const used = [plan.entity, ...columnsOf(plan.measure), ...plan.filters.map((f) => f.column)];
    const ranking = rankingLines(plan, perEntity).join('\n');
    const selection = selectionText(plan, language);
    const versus =
      plan.versus === 'other-end'
        ? [
            'versus = round(ranked.iloc[0] - ranked.iloc[-1], 2)',
            'other = ranked.index[-1]',
            `print("Difference to the other end (", other, "):", versus)`,
          ]
        : plan.versus === 'average'
          ? [
              'versus = round(ranked.iloc[0] - ranked.mean(), 2)',
              'other = round(ranked.mean(), 2)',
              'print("Difference to the average (", other, "):", versus)',
            ]
          : ['versus, other = None, None'];
    const cells: PlannedCell[] = [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Rank ${q(plan.entity)} by ${by === 'rows' ? 'the number of rows' : q(by)}, ${high ? 'highest' : 'lowest'} first${selection ? `, over the rows where ${selection}` : ''}.`,
          `按 ${by === 'rows' ? '行数' : q(by)} 对 ${q(plan.entity)} 排序（${high ? '从高到低' : '从低到高'}）${selection ? `，只看 ${selection} 的行` : ''}。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          ranking,
          [
            'print(ranked.head(15).to_string())',
            'first = ranked[ranked == ranked.iloc[0]].index.tolist() if len(ranked) else []',
            ...versus,
          ].join('\n'),
        ].join('\n\n'),
        share: [
          `share(first=first, value=ranked.iloc[0] if len(ranked) else None, order=ranked.index[:${Math.max(plan.n, 50)}].tolist(),`,
          `      values=ranked.values[:${Math.max(plan.n, 50)}].tolist(), versus=versus, other=other, ranking=ranked.head(15).reset_index())`,
        ].join('\n'),
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Chart the ranking.', '把排名画成图。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
          ranking,
          ['chart = ranked.head(15)', barChart({ title: `${by} by ${plan.entity}`, valueLabel: by })].join(
            '\n',
          ),
        ].join('\n\n'),
      },
    ];
    return cells;
  },

  answer(plan, shared, language) {
    const result = Result.safeParse(shared[0]);
    if (!result.success) return undefined;
    const r = result.data;
    const by = rankedName(plan.measure);
    const combined = by !== 'rows' && entityRepeats(plan);
    const per = plan.perEntity === 'mean' ? say(language, 'average ', '平均') : say(language, 'total ', '总');
    const byText = by === 'rows' ? say(language, 'number of rows', '行数') : `${combined ? per : ''}${q(by)}`;
    const table = tableOf(r.ranking);
    if (r.order.length === 0)
      return {
        summary: say(language, 'No row has a value to rank by.', '没有可供排序的数值。'),
        notes: [],
        items: [],
      };
    const high = plan.order === 'desc';
    const items = plan.full
      ? r.order.map(show)
      : plan.n > 1
        ? r.order.slice(0, plan.n).map(show)
        : r.first.map(show);
    const named = items.join(', ');
    let summary: string;
    if (plan.full)
      summary = say(
        language,
        `From ${high ? 'highest' : 'lowest'} to ${high ? 'lowest' : 'highest'} ${byText}: **${named}**.`,
        `按 ${byText} ${high ? '从高到低' : '从低到高'}：**${named}**。`,
      );
    else if (plan.n > 1)
      summary = say(
        language,
        `The ${plan.n} ${q(plan.entity)} with the ${high ? 'highest' : 'lowest'} ${byText} are **${named}**.`,
        `${byText} ${high ? '最高' : '最低'}的 ${plan.n} 个 ${q(plan.entity)} 是 **${named}**。`,
      );
    else
      summary = say(
        language,
        `**${named}** ${r.first.length > 1 ? 'share' : 'has'} the ${high ? 'highest' : 'lowest'} ${byText} (${show(r.value)})${r.first.length > 1 ? ', a tie' : ''}.`,
        `${byText}${high ? '最高' : '最低'}的是 **${named}**（${show(r.value)}）${r.first.length > 1 ? '，并列' : ''}。`,
      );
    if (r.versus !== undefined && r.versus !== null) {
      summary += say(
        language,
        plan.versus === 'average'
          ? ` That is ${show(r.versus)} more than the average (${show(r.other)}).`
          : ` The difference to ${show(r.other)}, at the other end, is ${show(r.versus)}.`,
        plan.versus === 'average'
          ? `比平均值（${show(r.other)}）高 ${show(r.versus)}。`
          : `与另一端的 ${show(r.other)} 相差 ${show(r.versus)}。`,
      );
      items.push(show(r.versus));
    }
    return { summary, ...(table ? { table } : {}), notes: [], items };
  },
};
