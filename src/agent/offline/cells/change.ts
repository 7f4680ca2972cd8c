import { z } from 'zod';
import { measureLabel, type Plan } from '../plan.ts';
import { barChart } from './charts.ts';
import { columnsOf, num, preamble, totalsKept } from './code.ts';
import { overTimeChartCell, seriesLines } from './over-time.ts';
import { q, type Recipe, say, show, tableOf } from './recipe.ts';

type ChangePlan = Extract<Plan, { kind: 'change' }>;

const Step = z.object({ when: z.unknown(), change: z.number().nullable(), table: z.unknown() });
const Between = z.object({
  start: z.number().nullable(),
  end: z.number().nullable(),
  change: z.number().nullable(),
  percent: z.number().nullable(),
  per_period: z.number().nullable(),
});

/** How a measure changed over time: the largest step from one period to the next, or from one period to another. */
export const changeRecipe: Recipe<ChangePlan> = {
  cells(plan, context, language) {
    const measure = measureLabel(plan.measure);
    const used = [plan.time, ...columnsOf(plan.measure), ...plan.filters.map((f) => f.column)];
    const series = seriesLines(plan, plan.measure, plan.perPeriod).join('\n');
    const setup = [preamble(context, { dropTotals: totalsKept(plan), columns: used }), series];
    if (plan.mode === 'step') {
      const changes = plan.relative ? '(series.pct_change() * 100).round(2)' : 'series.diff().round(2)';
      const pick =
        plan.direction === 'decrease'
          ? 'changes.idxmin()'
          : plan.direction === 'increase'
            ? 'changes.idxmax()'
            : 'changes.abs().idxmax()';
      const word = plan.relative
        ? say(language, 'percentage change', '百分比变化')
        : say(language, 'change', '变化');
      return [
        {
          purpose: 'compute',
          analyze: say(
            language,
            `Compute the ${word} of ${q(measure)} from each ${q(plan.time)} to the next and find the ${plan.direction === 'decrease' ? 'largest fall' : plan.direction === 'increase' ? 'largest rise' : 'largest change'}.`,
            `计算 ${q(measure)} 每个 ${q(plan.time)} 相对上一期的${word}，找出${plan.direction === 'decrease' ? '降幅最大' : plan.direction === 'increase' ? '增幅最大' : '变化最大'}的一期。`,
          ),
          code: [
            ...setup,
            [
              `changes = ${changes}`,
              `steps = pd.DataFrame({${JSON.stringify(measure)}: series, "change": changes})`,
              'print(steps.to_string())',
              `when = ${pick}`,
              'print("Largest:", when, changes[when])',
            ].join('\n'),
          ].join('\n\n'),
          share:
            'share(when=when, change=changes[when], table=steps.reset_index() if len(steps) <= 15 else None)',
        },
        {
          purpose: 'chart',
          analyze: say(language, 'Chart the changes.', '画出每期的变化。'),
          code: [
            preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
            series,
            [
              `chart = ${changes}.dropna()`,
              barChart({
                title: `${word} of ${measure} per ${plan.time}`,
                valueLabel: word,
                horizontal: false,
              }),
            ].join('\n'),
          ].join('\n\n'),
        },
      ];
    }
    const from = num(plan.from ?? 0);
    const to = num(plan.to ?? 0);
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Compare ${q(measure)} in ${from} with ${to}.`,
          `比较 ${q(measure)} 在 ${from} 和 ${to} 的值。`,
        ),
        code: [
          ...setup,
          [
            `start, end = series.get(${from}), series.get(${to})`,
            'change = round(end - start, 2) if start is not None and end is not None else None',
            'percent = round(100 * change / start, 2) if change is not None and start else None',
            `per_period = round(change / (${to} - ${from}), 2) if change is not None else None`,
            `print(${JSON.stringify(`${measure} in ${from}:`)}, start, ${JSON.stringify(` in ${to}:`)}, end)`,
            'print("Change:", change, f"({percent}%)", " per period:", per_period)',
          ].join('\n'),
        ].join('\n\n'),
        share: 'share(start=start, end=end, change=change, percent=percent, per_period=per_period)',
      },
      overTimeChartCell(context, plan, { used, series, measure, language }),
    ];
  },

  answer(plan, shared, language) {
    const measure = measureLabel(plan.measure);
    if (plan.mode === 'step') {
      const r = Step.safeParse(shared[0]);
      if (!r.success || r.data.change === null) return undefined;
      const table = tableOf(r.data.table);
      const unit = plan.relative ? '%' : '';
      return {
        summary: say(
          language,
          `The largest ${plan.direction === 'decrease' ? 'fall' : plan.direction === 'increase' ? 'rise' : 'change'} of ${q(measure)} from one ${q(plan.time)} to the next came in **${show(r.data.when)}**: ${show(r.data.change)}${unit}.`,
          `${q(measure)} 相对上一期${plan.direction === 'decrease' ? '降幅' : '增幅'}最大的是 **${show(r.data.when)}**：${show(r.data.change)}${unit}。`,
        ),
        ...(table ? { table } : {}),
        notes: [],
        items: [plan.ask === 'when' ? show(r.data.when) : show(r.data.change)],
      };
    }
    const r = Between.safeParse(shared[0]);
    if (!r.success) return undefined;
    const { start, end, change, percent, per_period: perPeriod } = r.data;
    if (change === null)
      return {
        summary: say(
          language,
          `${q(measure)} has no value for ${start === null ? plan.from : plan.to}, so the change cannot be computed.`,
          `${q(measure)} 在 ${start === null ? plan.from : plan.to} 没有值，无法计算变化。`,
        ),
        notes: [],
        items: [],
      };
    const value = plan.mode === 'average-step' ? perPeriod : plan.relative ? percent : change;
    return {
      summary: say(
        language,
        `${q(measure)} went from ${show(start)} in ${plan.from} to ${show(end)} in ${plan.to}: a change of ${show(change)}${percent !== null ? ` (${show(percent)}%)` : ''}, ${show(perPeriod)} per year on average. **${show(value)}${plan.relative && plan.mode !== 'average-step' ? '%' : ''}** answers the question.`,
        `${q(measure)} 从 ${plan.from} 年的 ${show(start)} 变为 ${plan.to} 年的 ${show(end)}：变化 ${show(change)}${percent !== null ? `（${show(percent)}%）` : ''}，平均每年 ${show(perPeriod)}。答案：**${show(value)}${plan.relative && plan.mode !== 'average-step' ? '%' : ''}**。`,
      ),
      notes: [],
      items: [`${show(value)}${plan.relative && plan.mode !== 'average-step' ? '%' : ''}`],
    };
  },
};
