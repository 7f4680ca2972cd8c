import { z } from 'zod';
import type { Plan } from '../plan.ts';
import { isNumeric } from '../schema.ts';
import { barChart } from './charts.ts';
import { column, preamble, pyList, totalsKept } from './code.ts';
import { q, type Recipe, say, tableOf } from './recipe.ts';

type MissingPlan = Extract<Plan, { kind: 'missing' }>;
type DuplicatesPlan = Extract<Plan, { kind: 'duplicates' }>;
type OutliersPlan = Extract<Plan, { kind: 'outliers' }>;

const Missing = z.object({ cells: z.number(), rows: z.number(), total: z.number(), table: z.unknown() });
const Duplicates = z.object({ duplicates: z.number(), total: z.number(), table: z.unknown() });
const Outliers = z.object({ outliers: z.number(), total: z.number(), table: z.unknown() });

/** Missing values per column, and how many rows have any. */
export const missingRecipe: Recipe<MissingPlan> = {
  cells(_plan, context, language) {
    return [
      {
        purpose: 'compute',
        analyze: say(language, 'Count the missing values in each column.', '统计每一列的缺失值。'),
        code: [
          preamble(context, { columns: [] }),
          [
            'missing = df.isna().sum()',
            'table = pd.DataFrame({"missing": missing, "share (%)": (100 * missing / max(len(df), 1)).round(2)})',
            'table = table[table["missing"] > 0].sort_values("missing", ascending=False)',
            'print(table.to_string() if len(table) else "No missing values.")',
            'incomplete = int(df.isna().any(axis=1).sum())',
            'print("Rows with at least one missing value:", incomplete, "of", len(df))',
          ].join('\n'),
        ].join('\n\n'),
        share:
          'share(cells=int(missing.sum()), rows=incomplete, total=len(df), table=table.reset_index().rename(columns={"index": "column"}))',
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Chart the missing values per column.', '画出每列的缺失值。'),
        code: [
          preamble(context, { columns: [], plot: true }),
          [
            'chart = df.isna().sum()',
            'chart = chart[chart > 0].sort_values(ascending=False)',
            barChart({ title: 'Missing values per column', valueLabel: 'missing values' }),
          ].join('\n'),
        ].join('\n\n'),
      },
    ];
  },
  answer(_plan, shared, language) {
    const r = Missing.safeParse(shared[0]);
    if (!r.success) return undefined;
    const table = tableOf(r.data.table);
    const summary =
      r.data.cells === 0
        ? say(
            language,
            `There are **no missing values** in the ${r.data.total} rows.`,
            `${r.data.total} 行中**没有缺失值**。`,
          )
        : say(
            language,
            `There are **${r.data.cells}** missing values; ${r.data.rows} of the ${r.data.total} rows have at least one.`,
            `共有 **${r.data.cells}** 个缺失值；${r.data.total} 行中有 ${r.data.rows} 行至少缺一个值。`,
          );
    return {
      summary,
      ...(table?.rows.length ? { table } : {}),
      notes: [],
      items: [String(r.data.cells)],
    };
  },
};

/** Rows that repeat another row exactly. */
export const duplicatesRecipe: Recipe<DuplicatesPlan> = {
  cells(_plan, context, language) {
    return [
      {
        purpose: 'compute',
        analyze: say(language, 'Look for rows that repeat another row exactly.', '查找完全重复的行。'),
        code: [
          preamble(context, { columns: [] }),
          [
            'repeats = df[df.duplicated(keep=False)]',
            'duplicates = int(df.duplicated().sum())',
            'print("Rows that repeat an earlier row:", duplicates, "of", len(df))',
            'print(repeats.head(20).to_string())',
          ].join('\n'),
        ].join('\n\n'),
        share: 'share(duplicates=duplicates, total=len(df), table=repeats.head(10))',
      },
    ];
  },
  answer(_plan, shared, language) {
    const r = Duplicates.safeParse(shared[0]);
    if (!r.success) return undefined;
    const table = tableOf(r.data.table);
    return {
      summary:
        r.data.duplicates === 0
          ? say(
              language,
              `**No row** repeats another, in ${r.data.total} rows.`,
              `${r.data.total} 行中**没有**重复的行。`,
            )
          : say(
              language,
              `**${r.data.duplicates}** of the ${r.data.total} rows repeat an earlier row exactly.`,
              `${r.data.total} 行中有 **${r.data.duplicates}** 行与前面的某行完全重复。`,
            ),
      ...(table?.rows.length ? { table } : {}),
      notes: [],
      items: [String(r.data.duplicates)],
    };
  },
};

/** Values outside 1.5 interquartile ranges of the quartiles (Tukey's fences), per numeric column. */
export const outliersRecipe: Recipe<OutliersPlan> = {
  cells(plan, context, language) {
    const numeric = plan.column
      ? [plan.column]
      : plan.table.columns
          .filter((c) => isNumeric(c) && c.kind !== 'empty')
          .map((c) => c.name)
          .slice(0, 12);
    const used = numeric.filter((name) => column(plan.table, name));
    return [
      {
        purpose: 'compute',
        analyze: say(
          language,
          `Flag values more than 1.5 interquartile ranges beyond the quartiles (Tukey's rule) in ${used.map(q).join(', ')}.`,
          `用 Tukey 规则（超出四分位数 1.5 倍四分位距）标出 ${used.map(q).join('、')} 中的异常值。`,
        ),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used }),
          [
            'found = []',
            `for column in ${pyList(used)}:`,
            '    values = df[column].dropna()',
            '    q1, q3 = values.quantile(0.25), values.quantile(0.75)',
            '    low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)',
            '    outside = values[(values < low) | (values > high)]',
            '    found.append({"column": column, "outliers": len(outside), "below": round(low, 2), "above": round(high, 2),',
            '                  "examples": ", ".join(str(v) for v in outside.head(5).round(2))})',
            'table = pd.DataFrame(found)',
            'print(table.to_string(index=False))',
          ].join('\n'),
        ].join('\n\n'),
        share:
          'share(outliers=int(table["outliers"].sum()) if len(table) else 0, total=len(df), table=table)',
      },
      {
        purpose: 'chart',
        analyze: say(language, 'Box plots show them.', '用箱线图展示。'),
        code: [
          preamble(context, { dropTotals: totalsKept(plan), columns: used, plot: true }),
          [
            `ax = df[${pyList(used)}].plot.box(figsize=(max(5, 1.6 * ${used.length}), 4), rot=30)`,
            'ax.set_title("Outliers by Tukey\'s rule")',
            'plt.savefig("outliers.png", bbox_inches="tight")',
          ].join('\n'),
        ].join('\n\n'),
      },
    ];
  },
  answer(_plan, shared, language) {
    const r = Outliers.safeParse(shared[0]);
    if (!r.success) return undefined;
    const table = tableOf(r.data.table);
    return {
      summary: say(
        language,
        `**${r.data.outliers}** values lie outside Tukey's fences (1.5 interquartile ranges beyond the quartiles), in ${r.data.total} rows.`,
        `共有 **${r.data.outliers}** 个值超出 Tukey 界限（四分位数外 1.5 倍四分位距），数据共 ${r.data.total} 行。`,
      ),
      ...(table ? { table } : {}),
      notes: [],
      items: [String(r.data.outliers)],
    };
  },
};
