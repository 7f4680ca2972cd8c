import type { Aggregate, Assumption, Condition, Measure, Subset } from '../plan.ts';
import { measureLabel } from '../plan.ts';
import { type ColumnInfo, isCategorical, isNumeric } from '../schema.ts';
import { splitWords } from '../text/words.ts';
import { type Cue, cuesOf } from './cues.ts';
import type { ColumnMention, ValueMention } from './mentions.ts';
import type { Reading } from './reading.ts';
import {
  type askedEntity,
  categoricalMentions,
  isIdLike,
  numericMentions,
  quantityColumns,
} from './roles.ts';
import { isYearColumn } from './time-column.ts';

/*
 * The parts of a plan that `choosePlan` reads from a question: its measure and how rows of a
 * group combine, the group and time columns, the periods, the subset kept and the filters.
 */

export const col = (column: string): Measure => ({ kind: 'column', column });

const AMOUNTS =
  /\b(?:sales|revenue|amount|count|number|quantity|units|orders|total|cases|deaths|births|visitors|passengers|sold|spend|spending|cost|costs|income|profit|volume)\b|销售|数量|金额|收入/i;

/** Rows of one period combine by sum for amounts (sales per year), else by mean (a rate, a level). */
export function trendAggregate(r: Reading, measure: Measure, cue: Cue | undefined): Aggregate {
  if (cue?.kind === 'sum' || cue?.kind === 'mean') return cue.kind;
  const name = measure.kind === 'rows' ? 'rows' : splitWords(measureLabel(measure)).join(' ');
  return AMOUNTS.test(name) || AMOUNTS.test(r.text) ? 'sum' : 'mean';
}

/**
 * The column "how many" asks to add up: named right after it ("how many points did …"), or,
 * when the question picks rows by a value and sets no bound, the column its verb names
 * ("how many games did Maesteg RFC play" → "played").
 */
export function summedByHowMany(
  r: Reading,
  cue: Cue,
  conditionColumns: Set<string>,
  filters: Condition[],
): ColumnMention | undefined {
  const next = numericMentions(r, cue.end, conditionColumns).find((m) => m.start >= cue.end);
  if (!next || next.score < 0.75) return undefined;
  const gap = r.text.slice(cue.end, next.start);
  if (/^\s*(?:(?:total|the|of)\s+)?$/i.test(gap)) return next;
  const picked = filters.some((f) => f.kind === 'equals' && typeof f.value === 'string');
  const bounded = filters.some((f) => f.kind === 'compare' || f.kind === 'between');
  return picked && !bounded && /\b(?:did|does|do|has|have|had|was|were|is|are)\b/i.test(gap)
    ? next
    : undefined;
}

/** The numeric column named right after a cue ("how many visits", "how many of the points"). */
export function namedAfter(r: Reading, cue: Cue): ColumnMention | undefined {
  const next = numericMentions(r, cue.end).find((m) => m.start >= cue.end);
  return next && /^\s*(?:(?:total|the|of)\s+)*$/i.test(r.text.slice(cue.end, next.start)) ? next : undefined;
}

/** The periods of a date column the question asks for: years or months. */
export function periodAsked(r: Reading): { period?: 'Y' | 'M' } {
  if (/\b(?:years?|yearly|annual(?:ly)?)\b|每年|年度|逐年/i.test(r.text)) return { period: 'Y' };
  if (/\b(?:months?|monthly)\b|每月|月度|逐月/i.test(r.text)) return { period: 'M' };
  return {};
}

/** A time column the question names ("over the years" with a `year` column), if any. */
export function askedTime(r: Reading): ColumnInfo | undefined {
  return r.columns.find((m) => m.column.kind === 'date' || isYearColumn(m.column))?.column;
}

/** A column of ranks or positions (1 is the best). */
export function isRankLike(column: ColumnInfo | undefined): boolean {
  return column !== undefined && isIdLike(column) && /rank|position|place|pos\b|排名|名次/i.test(column.name);
}

export function aggregateOf(cue: Cue): Aggregate {
  switch (cue.kind) {
    case 'mean':
      return 'mean';
    case 'sum':
      return 'sum';
    case 'median':
      return 'median';
    case 'min':
      return 'min';
    default:
      return 'max';
  }
}

/** The measure named nearest after `from`; else `fallback`; else the only quantity column. */
export function measureNear(
  r: Reading,
  from: number,
  exclude: Set<string>,
  assumptions: Assumption[],
  fallback?: () => ColumnInfo | undefined,
  /** Columns used only if no other is named (those the question filters on). */
  avoid: Set<string> = new Set(),
): Measure | undefined {
  const candidates = numericMentions(r, from, new Set([...exclude, ...avoid]));
  let named = candidates[0] ?? numericMentions(r, from, exclude)[0];
  // "population density": of two names side by side, the second is the head ("density").
  const next =
    named && candidates.find((m) => m.start > named!.end && /^\s*$/.test(r.text.slice(named!.end, m.start)));
  if (named && next && named.start >= from) named = next;
  if (named) return col(named.column.name);
  const guessed = fallback ? fallback() : soleQuantity(r, exclude);
  if (!guessed) return undefined;
  assumptions.push({
    role: 'measure',
    column: guessed.name,
    because: fallback ? 'outcome-guess' : 'only-quantity',
  });
  return col(guessed.name);
}

function soleQuantity(r: Reading, exclude: Set<string>): ColumnInfo | undefined {
  const quantities = quantityColumns(r.table).filter((c) => !exclude.has(c.name));
  return quantities.length === 1 ? quantities[0] : undefined;
}

/** Whether a cue word is part of a column's name ("total" in "total medals"). */
export function insideMention(r: Reading, cue: Cue): boolean {
  return r.columns.some((m) => cue.start >= m.start && cue.end <= m.end && m.score >= 0.6);
}

export function entityAsked(entity: ReturnType<typeof askedEntity>, r: Reading): boolean {
  return entity !== undefined && entity.start < (cuesOf(r.cues, 'difference')[0]?.start ?? 0);
}

/** Two values of the same column joined by "or", "and", "than", "compared to", "vs". */
export function valuePair(r: Reading): { column: ColumnInfo; values: [string, string] } | undefined {
  const values = [...r.values].sort((a, b) => a.start - b.start);
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) {
      const a = values[i]!;
      const b = values[j]!;
      if (a.column !== b.column || a.value === b.value || a.mode !== 'equals' || b.mode !== 'equals')
        continue;
      const gap = r.text.slice(a.end, b.start);
      if (
        /^\s*(?:,?\s*or|and|than|vs\.?|versus|compared (?:to|with)|against|和|与|跟|还是|或)\s*(?:the\s+)?(?:\p{L}+\s+){0,3}$/iu.test(
          gap,
        ) ||
        /\b(compared|than|versus)\b/i.test(gap)
      )
        return { column: a.column, values: [a.value, b.value] };
    }
  }
  return undefined;
}

/** The categorical column groups are formed by: named after "by/per/each/across", or asked for. */
export function groupColumn(r: Reading, asked: ColumnInfo | undefined): ColumnInfo | undefined {
  // Grouping needs a column whose values repeat: "per season" over one row per season is every row.
  const repeats = (c: ColumnInfo) => c.distinct < r.table.rows - c.missing;
  const categorical = categoricalMentions(r).filter(
    (m) => repeats(m.column) && !r.values.some((v) => v.column === m.column),
  );
  const after = categorical.find((m) => groupedBy(r, m.column));
  if (after) return after.column;
  if (asked && isCategorical(asked, r.table.rows) && repeats(asked)) return asked;
  return categorical[0]?.column;
}

/** Whether a column is named right after a grouping word ("by region", "each region", "各地区"). */
export function groupedBy(r: Reading, column: ColumnInfo, word?: RegExp): boolean {
  return r.columns.some(
    (mention) =>
      mention.column === column &&
      cuesOf(r.cues, 'group-by', 'each').some(
        (c) => c.end <= mention.start && mention.start - c.end <= 12 && (!word || word.test(c.text)),
      ),
  );
}

/** Rows kept before aggregating: "the top 5 tallest", "the first 3", "the 5 highest ranked". */
export function subsetOf(r: Reading, assumptions: Assumption[]): Subset | undefined {
  const top = r.topN;
  if (!top) return undefined;
  if (
    top.tableOrder &&
    !cuesOf(r.cues, 'max', 'min').some((c) => c.start >= top.end && c.start - top.end < 30)
  )
    return { n: top.n, order: top.order };
  const extreme = cuesOf(r.cues, 'max', 'min').find((c) => c.start >= top.start && c.start - top.end < 40);
  const by = extreme ? numericMentions(r, extreme.end)[0] : undefined;
  if (by) return { n: top.n, by: col(by.column.name), order: extreme!.kind === 'min' ? 'asc' : 'desc' };
  const rank = r.table.columns.find((c) => isNumeric(c) && isRankLike(c));
  if (rank) {
    assumptions.push({ role: 'order', column: rank.name, because: 'rank-column' });
    return { n: top.n, by: col(rank.name), order: top.order === 'desc' ? 'asc' : 'desc' };
  }
  const named = numericMentions(r, top.end)[0];
  if (named) return { n: top.n, by: col(named.column.name), order: top.order };
  return { n: top.n, order: top.order };
}

/**
 * Filters from the values a question names (one per place; the first column wins). Several
 * values of one column are alternatives ("the healthcare and education industries"), or a
 * span of rows when written "from A to B".
 */
export function valueFilters(r: Reading, values: ValueMention[], skip: Set<string>): Condition[] {
  const filters: Condition[] = [];
  const places = new Set<string>();
  const byColumn = new Map<string, ValueMention[]>();
  for (const v of values) {
    const place = `${v.start}:${v.end}`;
    if (skip.has(v.column.name) || places.has(place)) continue;
    places.add(place);
    if (v.mode === 'contains') {
      filters.push({ kind: 'contains', column: v.column.name, value: r.text.slice(v.start, v.end) });
      continue;
    }
    byColumn.set(v.column.name, [...(byColumn.get(v.column.name) ?? []), v]);
  }
  for (const [column, named] of byColumn) {
    const ordered = [...named].sort((a, b) => a.start - b.start);
    if (new Set(ordered.map((v) => v.value)).size === 1) {
      filters.push({ kind: 'equals', column, value: ordered[0]!.value });
      continue;
    }
    const [first, second] = ordered as [ValueMention, ValueMention];
    const spanned =
      ordered.length === 2 &&
      /\b(?:from|between)\s+(?:the\s+)?['"“]?$/i.test(
        r.text.slice(Math.max(0, first.start - 14), first.start),
      ) &&
      /^['"”]?\s*(?:to|until|through|-|–)\s*['"“]?$/i.test(r.text.slice(first.end, second.start));
    filters.push(
      spanned
        ? { kind: 'span', column, from: first.value, to: second.value }
        : { kind: 'in', column, values: [...new Set(ordered.map((v) => v.value))] },
    );
  }
  return filters;
}

export function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
