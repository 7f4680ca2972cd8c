import { cleanFollowUps } from '../follow-ups.ts';
import type { Language } from './cells/recipe.ts';
import type { Look } from './schema.ts';

type Column = Look['tables'][number]['columns'][number];

/**
 * What the offline analyst suggests asking next: shapes it answers (a group comparison, a
 * ranking, a trend, a data-quality check), written with this table's own column names.
 */
export function offlineFollowUps(data: Look, language: Language, asked: string): string[] {
  const table = data.tables[0];
  if (!table) return [];
  const measure = table.columns.find(isMeasure);
  const group = table.columns.find(isGroup);
  const date = table.columns.find((c) => c.kind === 'date') ?? table.columns.find(isTime);
  const zh = language === 'zh';
  const questions: string[] = [];
  // Each wording is one the analyst reads as the shape meant (test/agent/follow-ups.test.ts).
  if (measure && group)
    questions.push(
      zh
        ? `各 ${group.name} 的 ${measure.name} 平均值是多少？`
        : `What is the average ${measure.name} by ${group.name}?`,
      zh
        ? `哪个${group.name}的${measure.name}总和最高？`
        : `Which ${group.name} has the highest total ${measure.name}?`,
    );
  if (measure && date)
    questions.push(
      zh ? `${measure.name} 随时间的趋势如何？` : `What is the trend of ${measure.name} over time?`,
    );
  questions.push(zh ? '数据中有缺失值吗？' : 'Are there missing values?');
  return cleanFollowUps(questions, asked);
}

/** A number worth summing or averaging: not an id, not a year or other time of its own. */
function isMeasure(column: Column): boolean {
  return (
    column.kind === 'number' &&
    !/(^|_)id$|^id|编号/i.test(column.name) &&
    !isTime(column) &&
    column.distinct > 2
  );
}

const TIME_NAME = /^(year|month|quarter|week|day|date|yr)s?$|年|月|季度/i;

/** A number column that counts time (a year, a month), what the analyst's trends run over. */
function isTime(column: Column): boolean {
  if (column.kind !== 'number') return false;
  if (TIME_NAME.test(column.name)) return true;
  const { min, max } = column;
  return (
    column.integer === true &&
    typeof min === 'number' &&
    typeof max === 'number' &&
    min >= 1900 &&
    max <= 2100
  );
}

/** A column to group by: text (or few numbers) with a handful of values. */
function isGroup(column: Column): boolean {
  return (column.kind === 'text' || column.kind === 'bool') && column.distinct >= 2 && column.distinct <= 30;
}
