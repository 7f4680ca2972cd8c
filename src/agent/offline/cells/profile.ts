import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { py, pythonSource } from '../python-source.ts';
import type { TableInfo } from '../schema.ts';
import { preamble, slug } from './code.ts';
import { type Language, type PlannedCell, q, type Recipe, say, show } from './recipe.ts';

type ProfilePlan = Extract<Plan, { kind: 'profile' }>;

/** Tables profiled at most (one cell each). */
const MAX_TABLES = 4;

const Stats = z.record(z.number().nullable());
const Summary = z.object({
  name: z.string(),
  rows: z.number(),
  columns: z.number(),
  missing: z.record(z.number()),
  numeric: z.record(Stats),
  top_values: z.record(z.array(z.tuple([z.string(), z.number()]))),
  correlations: z.array(z.tuple([z.string(), z.string(), z.number()])),
  charts: z.array(z.string()),
});

function profiled(plan: ProfilePlan): TableInfo[] {
  return plan.tables.filter((t) => t.columns.length > 0).slice(0, MAX_TABLES);
}

/** The fallback: a profile of each table (as the offline analyst did before it read questions). */
export const profileRecipe: Recipe<ProfilePlan> = {
  cells(plan, context, language) {
    return profiled(plan).map((table, index): PlannedCell => {
      const numericText = table.columns.filter((c) => c.kind === 'numeric-text').map((c) => c.name);
      return {
        purpose: 'compute',
        analyze:
          index === 0
            ? say(
                language,
                'Profile the data: missing values, summary statistics, the most frequent values, correlations and charts.',
                '对数据做概况分析：缺失值、统计摘要、最常见的取值、相关性和图表。',
              )
            : say(language, `Now the same for ${q(table.label)}.`, `接着分析 ${q(table.label)}。`),
        code: [
          preamble({ ...context, table }, { columns: numericText, plot: true, sample: true }),
          pythonSource('profile.py').trim(),
          `summary = profile(df, ${py(table.label)}, ${py(`profile_${slug(table.label)}`)})`,
        ].join('\n\n\n'),
        share: 'share(**summary)',
      };
    });
  },

  answer(plan, shared, language) {
    const lines: string[] = [];
    profiled(plan).forEach((_table, index) => {
      const parsed = Summary.safeParse(shared[index]);
      if (!parsed.success) return;
      lines.push(...tableLines(parsed.data, language), '');
    });
    const empty = plan.tables.filter((t) => t.columns.length === 0).map((t) => t.label);
    if (empty.length)
      lines.push(say(language, `No columns in: ${empty.join(', ')}.`, `没有列：${empty.join('、')}。`));
    return { summary: lines.join('\n').trim(), notes: [], items: [] };
  },
};

function tableLines(summary: z.infer<typeof Summary>, language: Language): string[] {
  const lines = [
    say(
      language,
      `**${summary.name}**: ${summary.rows} rows × ${summary.columns} columns.`,
      `**${summary.name}**：${summary.rows} 行 × ${summary.columns} 列。`,
    ),
  ];
  const missing = Object.entries(summary.missing);
  lines.push(
    missing.length === 0
      ? say(language, '- No missing values.', '- 没有缺失值。')
      : `- ${say(language, 'Missing values', '缺失值')}: ${missing.map(([c, n]) => `${c} ${n}`).join(', ')}`,
  );
  for (const [column, stats] of Object.entries(summary.numeric).slice(0, 8)) {
    lines.push(
      say(
        language,
        `- ${column}: mean ${show(stats.mean)}, median ${show(stats['50%'])}, min ${show(stats.min)}, max ${show(stats.max)}`,
        `- ${column}：均值 ${show(stats.mean)}，中位数 ${show(stats['50%'])}，最小 ${show(stats.min)}，最大 ${show(stats.max)}`,
      ),
    );
  }
  for (const [column, values] of Object.entries(summary.top_values).slice(0, 5)) {
    const top = values[0];
    if (top)
      lines.push(
        say(
          language,
          `- Most frequent ${column}: ${top[0]} (${top[1]})`,
          `- ${column} 最常见：${top[0]}（${top[1]}）`,
        ),
      );
  }
  const best = summary.correlations[0];
  if (best)
    lines.push(
      say(
        language,
        `- Strongest correlation: ${best[0]} ~ ${best[1]}, r = ${show(best[2])}`,
        `- 相关性最强：${best[0]} ~ ${best[1]}，r = ${show(best[2])}`,
      ),
    );
  return lines;
}
