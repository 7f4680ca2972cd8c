import type { Condition } from '../plan.ts';
import { type ColumnInfo, isNumeric } from '../schema.ts';
import type { NumberMention } from '../text/numbers.ts';
import type { ColumnMention } from './mentions.ts';

type Op = '>' | '>=' | '<' | '<=' | '=';

/** Words before a number that say how to compare with it. */
const BEFORE: [RegExp, Op][] = [
  [/(?:greater|more|larger|higher|bigger|longer|older|heavier|taller|wider|richer)\s+than\s*$/i, '>'],
  [/(?:over|above|exceed(?:s|ed|ing)?|surpass(?:es|ed|ing)?|beyond|>)\s*$/i, '>'],
  [/(?:at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than|minimum\s+of|>=|≥)\s*$/i, '>='],
  [/(?:less|fewer|lower|smaller|shorter|younger|cheaper)\s+than\s*$/i, '<'],
  [/(?:below|under|beneath|before|earlier\s+than|prior\s+to|<)\s*$/i, '<'],
  [/(?:after|later\s+than)\s*$/i, '>'],
  [/(?:since)\s*$/i, '>='],
  [/(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|maximum\s+of|<=|≤)\s*$/i, '<='],
  [/(?:大于|超过|高于|多于|>)\s*$/u, '>'],
  [/(?:至少|不少于|不低于|>=)\s*$/u, '>='],
  [/(?:小于|低于|少于|不到|<)\s*$/u, '<'],
  [/(?:不超过|至多|不高于|<=)\s*$/u, '<='],
];
/** Words after a number that say how to compare with it. */
const AFTER: [RegExp, Op][] = [
  [
    /^\s*(?:[\p{L}%]+\s+){0,2}?(?:or|and)\s+(?:more|higher|above|greater|over|larger|up|beyond|later|after)\b/iu,
    '>=',
  ],
  [/^\s*\+/, '>='],
  [
    /^\s*(?:[\p{L}%]+\s+){0,2}?(?:or|and)\s+(?:less|lower|below|fewer|under|smaller|earlier|before)\b/iu,
    '<=',
  ],
  [/^\s*(?:以上|或以上|及以上)/u, '>='],
  [/^\s*(?:以下|或以下|及以下)/u, '<='],
];
const OPERATOR_WORDS =
  /\b(?:greater|more|larger|higher|bigger|less|fewer|lower|smaller|than|over|above|below|under|exceed\w*|at least|at most|no more|no less|equal to|equals|up to)\b|[<>=≥≤]|大于|超过|高于|小于|低于|至少|不超过/giu;
const CONNECTOR = /^\s*(?:(?:of|is|was|are|were|a|an|the|at|with|:|=|\s)+)?\s*$/i;

const SCALES: Record<string, number> = {
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  k: 1e3,
  bn: 1e9,
  mn: 1e6,
};

function sharesWord(a: string, b: string): boolean {
  const words = (name: string) => new Set(name.toLowerCase().match(/\p{L}{3,}/gu) ?? []);
  const left = words(a);
  return [...words(b)].some((w) => left.has(w));
}

/** Whether a column holds percentages (its name or its values say so). */
export function isPercentColumn(column: ColumnInfo): boolean {
  return column.percent === true || /%|percent|share|pct|百分/i.test(column.name);
}

const RANGE_BETWEEN = /\b(?:between|from)\s*$/i;
const RANGE_AND = /^\s*(?:and|to|through|until|till|-|–|—|~|至|到)\s*$/i;

/** A number the question compares a column with, found with the words around it. */
export interface FoundCondition {
  condition: Condition;
  start: number;
  end: number;
}

/**
 * Conditions from the numbers in a question: "more than 10", "between 1990 and 2000",
 * "won 18 gold medals", "in 2019". Each number is tied to the column named just before
 * its comparison words, else just after the number, else (for a year) the time column.
 */
export function findConditions(
  question: string,
  numbers: NumberMention[],
  mentions: ColumnMention[],
  timeColumn: ColumnInfo | undefined,
  columns: ColumnInfo[] = [],
): FoundCondition[] {
  const percentColumns = columns.filter((c) => isNumeric(c) && isPercentColumn(c));
  const found: FoundCondition[] = [];
  const used = new Set<NumberMention>();
  for (let i = 0; i < numbers.length; i++) {
    const number = numbers[i]!;
    if (used.has(number)) continue;
    const before = question.slice(Math.max(0, number.start - 40), number.start);
    const next = numbers[i + 1];
    // A range: "between 2000 and 2010", "from 2002 to 2012", "2000-2007".
    if (next && RANGE_AND.test(question.slice(number.end, next.start))) {
      const between = RANGE_BETWEEN.test(before);
      const column = columnFor(question, number, mentions, timeColumn, next.end, percentColumns);
      if (column && (between || number.year || isNumeric(column))) {
        used.add(next);
        found.push({
          condition: { kind: 'between', column: column.name, low: number.value, high: next.value },
          start: number.start,
          end: next.end,
        });
        continue;
      }
    }
    const op =
      BEFORE.find(([pattern]) => pattern.test(before))?.[1] ??
      AFTER.find(([pattern]) => pattern.test(question.slice(number.end, number.end + 20)))?.[1] ??
      '=';
    const column = columnFor(question, number, mentions, timeColumn, number.end, percentColumns);
    if (!column) continue;
    // "sales of at least 300 billion" against a column "sales (billion)": the column's unit already says billion.
    const unscaled =
      number.scale && new RegExp(`\\b${number.scale}`, 'i').test(column.name)
        ? number.value / SCALES[number.scale]!
        : number.value;
    const value =
      number.percent && isNumeric(column) && !column.percent && (column.max as number) <= 1
        ? unscaled / 100
        : unscaled;
    // "in 2001" is not a value of a column of percentages: an equality must be one the column can hold.
    if (op === '=' && isNumeric(column) && (value < Number(column.min) || value > Number(column.max)))
      continue;
    const condition: Condition =
      op === '='
        ? column.kind === 'date'
          ? { kind: 'year', column: column.name, value }
          : { kind: 'equals', column: column.name, value }
        : { kind: 'compare', column: column.name, op, value };
    found.push({ condition, start: number.start, end: number.end });
  }
  return found;
}

/** The column a number is about. */
function columnFor(
  question: string,
  number: NumberMention,
  mentions: ColumnMention[],
  timeColumn: ColumnInfo | undefined,
  after: number,
  percentColumns: ColumnInfo[] = [],
): ColumnInfo | undefined {
  // A year goes to the time column, unless the column named right before it holds such values too.
  if (number.year && timeColumn) {
    const tightPrior = mentions
      .filter(
        (m) =>
          m.end <= number.start &&
          CONNECTOR.test(question.slice(m.end, number.start).replace(OPERATOR_WORDS, ' ')),
      )
      .find(
        (m) =>
          m.column !== timeColumn &&
          isNumeric(m.column) &&
          Number(m.column.max) >= number.value &&
          Number(m.column.min) <= number.value,
      );
    return tightPrior?.column ?? timeColumn;
  }
  const usable = mentions.filter((m) => isNumeric(m.column) || m.column.kind === 'date');
  // Named just before ("a rating of 5.3 or higher", "population greater than 1000").
  const prior = usable
    .filter((m) => m.end <= number.start && number.start - m.end <= 30)
    .filter((m) => !/[,;?]|\b(?:and|or|which|who|that)\b/i.test(question.slice(m.end, number.start)))
    .sort((a, b) => b.end - a.end)[0];
  // Named just after ("won 18 gold medals", "40,000 or more people speaking Spanish").
  const following = usable
    .filter((m) => m.start >= after && m.start - after <= 25)
    .filter((m) => !/[,;?]|\b(?:and|or|which|who|that|than)\b/i.test(question.slice(after, m.start)))
    .sort((a, b) => a.start - b.start)[0];
  // "elevation above 3000 meters", "an average of 11.4 yards": the name right before the comparison wins.
  const tight = prior && CONNECTOR.test(question.slice(prior.end, number.start).replace(OPERATOR_WORDS, ' '));
  // "an area greater than 20000 square kilometers": units after the number pick among related columns.
  const sameFamily =
    prior &&
    following &&
    prior.column !== following.column &&
    sharesWord(prior.column.name, following.column.name);
  const chosen = sameFamily ? following : ((tight ? prior : undefined) ?? following ?? prior);
  // "more than 10% of the votes": a percentage belongs to a column of percentages, if there is one.
  if (number.percent && chosen && !isPercentColumn(chosen.column)) {
    const percent = percentColumns.find((c) => c !== chosen!.column);
    if (percent) return percent;
  }
  if (chosen) return chosen.column;
  if (number.year && timeColumn) return timeColumn;
  return undefined;
}
