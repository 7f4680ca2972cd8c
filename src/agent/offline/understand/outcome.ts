import { type ColumnInfo, isCategorical, isNumeric, type TableInfo } from '../schema.ts';
import { tokenize } from '../text/tokens.ts';
import { quantityColumns } from './roles.ts';

const OUTCOME_WORDS = new Set(
  'success outcome result pass passed win won converted conversion churn survived survival recovered score grade mark performance sales revenue profit income amount value rate return yield 成绩 得分 分数 销售额 收入 利润 结果 成功'.split(
    ' ',
  ),
);

/**
 * The column a comparison of groups is about when the question names none ("which
 * treatment performs better"): a 0/1 outcome first (a success rate), then a column named
 * like an outcome, then the first quantity.
 */
export function guessOutcome(table: TableInfo, exclude: Set<string>): ColumnInfo | undefined {
  const candidates = table.columns.filter((c) => isNumeric(c) && !exclude.has(c.name));
  const named = (c: ColumnInfo) =>
    tokenize(c.name).some((t) => OUTCOME_WORDS.has(t.word)) ||
    [...OUTCOME_WORDS].some((w) => /\p{Script=Han}/u.test(w) && c.name.includes(w));
  const binary = (c: ColumnInfo) => c.kind === 'number' && c.min === 0 && c.max === 1 && c.distinct === 2;
  return (
    candidates.find((c) => binary(c) && named(c)) ??
    candidates.find((c) => named(c)) ??
    candidates.find(binary) ??
    quantityColumns(table).find((c) => !exclude.has(c.name))
  );
}

/** Other columns to check a comparison within: categorical, 2–12 groups, not the compared ones. */
export function strataFor(table: TableInfo, exclude: Set<string>): string[] {
  return table.columns
    .filter(
      (c) => !exclude.has(c.name) && isCategorical(c, table.rows) && c.distinct >= 2 && c.distinct <= 12,
    )
    .slice(0, 3)
    .map((c) => c.name);
}
