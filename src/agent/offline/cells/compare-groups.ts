import { z } from 'zod';
import { type Aggregate, measureLabel, type Plan } from '../plan.ts';
import { py } from '../python-source.ts';
import { selectionText } from './aggregate.ts';
import {
  column,
  columnsOf,
  decimalsFor,
  filterLines,
  measureExpr,
  preamble,
  pyList,
  ref,
  slug,
  totalsKept,
} from './code.ts';
import {
  type Language,
  type PlannedCell,
  q,
  type Recipe,
  SharedTable,
  say,
  show,
  tableOf,
} from './recipe.ts';

type GroupsPlan = Extract<Plan, { kind: 'compare-groups' }>;

const AGGREGATE: Record<Aggregate, [string, string, string]> = {
  mean: ['mean', 'mean', '均值'],
  sum: ['sum', 'total', '总和'],
  median: ['median', 'median', '中位数'],
  max: ['max', 'highest', '最大值'],
  min: ['min', 'lowest', '最小值'],
  count: ['count', 'count', '行数'],
};

const Overall = z.object({ summary: SharedTable });
const Within = z.object({ within: z.record(SharedTable) });

/** Whether the outcome is a 0/1 column, so its mean is a rate worth showing in percent. */
function isRate(plan: GroupsPlan): boolean {
  if (plan.outcome.kind !== 'column' || plan.aggregate !== 'mean') return false;
  const info = column(plan.table, plan.outcome.column);
  return info?.kind === 'number' && info.min === 0 && info.max === 1 && info.distinct === 2;
}

/**
 * Groups compared on an outcome, then the same comparison within each stratum of other
 * categorical columns: when the overall winner loses inside every stratum, that is
 * Simpson's paradox, and the answer says so.
 */
export const compareGroupsRecipe: Recipe<GroupsPlan> = {
  cells(plan, context, language) {
    const outcome = measureLabel(plan.outcome);
    const [method, word, zhWord] = AGGREGATE[plan.aggregate];
    const digits = Math.max(decimalsFor(plan.table, plan.outcome), isRate(plan) ? 4 : 2);
    const used = [
      plan.group,
      ...columnsOf(plan.outcome),
      ...plan.filters.map((f) => f.column),
      ...plan.strata,
    ];
    const selection = selectionText(plan, language);
    const values = `(${measureExpr(plan.outcome)})`;
    const grouped = (keys: string) =>
      plan.aggregate === 'count' ? `rows.groupby(${keys}).size()` : `${values}.groupby(${keys}).${method}()`;
    const setup = [
      preamble(context, { dropTotals: totalsKept(plan), columns: used }),
      filterLines(plan.filters).join('\n'),
    ];
    const overall = [
      `summary = ${values}.groupby(${ref(plan.group, 'rows')}).agg([${py(method)}, "count"]).round(${digits})`,
      ...(isRate(plan) ? [`summary["rate (%)"] = (summary[${py(method)}] * 100).round(1)`] : []),
      'print(summary.to_string())',
    ];
    const cells: PlannedCell[] = [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Compare the ${word} of ${q(outcome)} across the groups of ${q(plan.group)}${selection ? `, over the rows where ${selection}` : ''}.`,
          `按 ${q(plan.group)} 分组，比较 ${q(outcome)} 的${zhWord}${selection ? `（只看 ${selection} 的行）` : ''}。`,
        ),
        code: [...setup, overall.join('\n')].join('\n\n'),
        share: 'share(summary=summary.reset_index())',
      },
    ];
    if (plan.strata.length > 0) {
      const keys = `[rows[column], ${ref(plan.group, 'rows')}]`;
      cells.push({
        purpose: 'check',
        analyze: say(
          language,
          `An overall comparison can hide or reverse what happens inside groups (Simpson's paradox). Check it within each ${plan.strata.map(q).join(', ')}.`,
          `整体比较可能掩盖甚至颠倒组内的情况（辛普森悖论）。分别在每个 ${plan.strata.map(q).join('、')} 内部核对。`,
        ),
        code: [
          ...setup,
          [
            'within = {}',
            `for column in ${pyList(plan.strata)}:`,
            `    table = ${grouped(keys)}.unstack().round(${digits})`,
            `    sizes = rows.groupby(${keys}).size().unstack(fill_value=0)`,
            `    print(${py(`${capitalize(word)} of ${outcome} by ${plan.group} within each`)}, column + ":")`,
            '    print(table.to_string())',
            '    print("Rows:")',
            '    print(sizes.to_string(), end="\\n\\n")',
            '    within[column] = table.reset_index()',
          ].join('\n'),
        ].join('\n\n'),
        share: 'share(within=within)',
      });
    }
    const panels = 1 + plan.strata.length;
    cells.push({
      purpose: 'chart',
      analyze: say(
        language,
        'Chart the groups, overall and within each stratum.',
        '画出分组结果：整体以及每个分层内部。',
      ),
      code: [
        preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
        filterLines(plan.filters).join('\n'),
        [
          `fig, axes = plt.subplots(1, ${panels}, figsize=(${4 * panels + 1}, 4), squeeze=False)`,
          `${grouped(ref(plan.group, 'rows'))}.plot.bar(ax=axes[0][0], color="#4c78a8", title="Overall")`,
          `axes[0][0].set_ylabel(${py(`${word} of ${outcome}`)})`,
          ...plan.strata.map(
            (stratum, i) =>
              `${grouped(`[${ref(stratum, 'rows')}, ${ref(plan.group, 'rows')}]`)}.unstack().plot.bar(ax=axes[0][${i + 1}], title=${py(`Within ${stratum}`)})`,
          ),
          `plt.savefig(${py(`${slug(`${outcome} by ${plan.group}`)}.png`)}, bbox_inches="tight")`,
        ].join('\n'),
      ].join('\n\n'),
    });
    return cells;
  },

  answer(plan, shared, language) {
    const overall = Overall.safeParse(shared[0]);
    if (!overall.success) return undefined;
    const table = tableOf(overall.data.summary)!;
    const [method, word, zhWord] = AGGREGATE[plan.aggregate];
    const outcome = measureLabel(plan.outcome);
    const valueAt = table.columns.indexOf(method === 'count' ? 'count' : method);
    const rateAt = table.columns.indexOf('rate (%)');
    const groups = table.rows
      .map((row) => ({
        name: show(row[0]),
        value: row[valueAt] as number | null,
        rate: rateAt >= 0 ? row[rateAt] : undefined,
      }))
      .filter((g) => typeof g.value === 'number');
    if (groups.length === 0) return undefined;
    const sorted = [...groups].sort((a, b) => b.value! - a.value!);
    const best = sorted[0]!;
    const listed = sorted
      .map((g) => `${g.name}: ${show(g.value)}${g.rate !== undefined ? ` (${show(g.rate)}%)` : ''}`)
      .join(', ');
    const parts = [
      say(
        language,
        `Overall, ${q(plan.group)} **${best.name}** has the ${groups.length > 1 ? 'highest' : 'only'} ${word} ${q(outcome)} (${listed}).`,
        `整体上，${q(plan.group)} 为 **${best.name}** 的 ${q(outcome)} ${zhWord}最高（${listed}）。`,
      ),
    ];
    const notes: string[] = [];
    const within = Within.safeParse(shared[1]);
    let answerGroup = best.name;
    if (within.success && groups.length > 1) {
      const verdicts = Object.entries(within.data.within).map(([stratum, t]) =>
        strataVerdict(stratum, tableOf(t)!, best.name),
      );
      const reversed = verdicts.filter((v) => v.reversed);
      for (const v of reversed) {
        parts.push(paradoxSentence(plan, v, best.name, word, language));
        if (v.winner) answerGroup = v.winner;
      }
      const held = verdicts.filter((v) => !v.reversed && v.strata.length > 0);
      if (held.length)
        notes.push(
          say(
            language,
            `Within each ${held.map((v) => q(v.stratum)).join(' and ')}, ${best.name} ${held.every((v) => v.mixed.length === 0) ? 'stays ahead' : 'is ahead in most groups'}${held.some((v) => v.mixed.length) ? ` (not in: ${held.flatMap((v) => v.mixed).join(', ')})` : ''}.`,
            `在每个 ${held.map((v) => q(v.stratum)).join('和')} 内部，${best.name} ${held.every((v) => v.mixed.length === 0) ? '仍然领先' : '在多数组中领先'}${held.some((v) => v.mixed.length) ? `（例外：${held.flatMap((v) => v.mixed).join('、')}）` : ''}。`,
          ),
        );
    }
    return { summary: parts.join(' '), table, notes, items: [answerGroup] };
  },
};

interface Verdict {
  stratum: string;
  /** Each stratum's value and its best group with the values of the groups. */
  strata: { name: string; winner: string; values: string }[];
  /** True when the overall best group is not the best in any stratum that compares groups. */
  reversed: boolean;
  /** The group that wins in every stratum, when one does. */
  winner?: string;
  /** Strata where the overall best is not the best (when not all are). */
  mixed: string[];
}

function strataVerdict(
  stratum: string,
  table: { columns: string[]; rows: unknown[][] },
  overallBest: string,
): Verdict {
  const groupNames = table.columns.slice(1);
  const strata = table.rows.flatMap((row) => {
    const values = groupNames
      .map((name, i) => ({ name, value: row[i + 1] }))
      .filter((v): v is { name: string; value: number } => typeof v.value === 'number');
    if (values.length < 2) return [];
    const winner = values.reduce((a, b) => (b.value > a.value ? b : a));
    return [
      {
        name: show(row[0]),
        winner: winner.name,
        values: values.map((v) => `${v.name} ${show(v.value)}`).join(' vs '),
      },
    ];
  });
  const losing = strata.filter((s) => s.winner !== overallBest);
  const winners = new Set(strata.map((s) => s.winner));
  const reversed = strata.length > 0 && losing.length === strata.length;
  return {
    stratum,
    strata,
    reversed,
    ...(reversed && winners.size === 1 ? { winner: [...winners][0]! } : {}),
    mixed: reversed ? [] : losing.map((s) => s.name),
  };
}

function paradoxSentence(
  plan: GroupsPlan,
  v: Verdict,
  best: string,
  word: string,
  language: Language,
): string {
  const detail = v.strata.map((s) => `${s.name}: ${s.values}`).join('; ');
  const winner = v.winner ?? say(language, 'another group', '其他组');
  return say(
    language,
    `**But within every ${q(v.stratum)}, ${q(plan.group)} ${winner} does better** (${detail}): the overall result is reversed inside the groups — **Simpson's paradox**. The groups of ${q(plan.group)} are spread unevenly across ${q(v.stratum)}, so compare within ${q(v.stratum)} rather than overall: there, ${winner} has the higher ${word}, not ${best}.`,
    `**但在每个 ${q(v.stratum)} 内部，${q(plan.group)} 为 ${winner} 的表现更好**（${detail}）：整体结论在组内被颠倒了——这就是**辛普森悖论**。${q(plan.group)} 各组在 ${q(v.stratum)} 上分布不均，应在 ${q(v.stratum)} 内部比较，而不是看整体：组内 ${winner} 的${word === 'mean' ? '均值' : word}更高，而不是 ${best}。`,
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
