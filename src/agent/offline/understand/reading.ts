import type { Look, TableInfo } from '../schema.ts';
import { chineseNumeral, findNumbers, type NumberMention, SPELLED } from '../text/numbers.ts';
import { hasChinese } from '../text/words.ts';
import { type FoundCondition, findConditions } from './conditions.ts';
import { type Cue, findCues } from './cues.ts';
import { type ColumnMention, findColumnMentions, findValueMentions, type ValueMention } from './mentions.ts';
import { timeColumn } from './time-column.ts';

/** A question read against one table: what it names, where, and the words around. */
export interface Reading {
  text: string;
  language: 'en' | 'zh';
  table: TableInfo;
  cues: Cue[];
  /** Columns named, one per place in the question, best first. */
  columns: ColumnMention[];
  /** Values named, one per place, best first. */
  values: ValueMention[];
  /** Numbers that are not part of a name. */
  numbers: NumberMention[];
  conditions: FoundCondition[];
  /** "top 5", "the first three", "前5". */
  topN?: { n: number; order: 'desc' | 'asc'; start: number; end: number; tableOrder: boolean };
}

const TOP_N =
  /\b(top|first|bottom|last|best|worst|leading|highest|lowest)\s+(?:(\d+)|(two|three|four|five|six|seven|eight|nine|ten|twenty))\b|前\s*(\d+|[一二两三四五六七八九十]+)|后\s*(\d+|[一二两三四五六七八九十]+)/giu;
const WHICH_N = /\b(?:which|what|the)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?![\d%])/gi;
/** "哪2个region", "最高的3个地区", "销量最低的两家": a number of things, with the extreme that orders them. */
const CHINESE_N =
  /(?:哪|(最低|最小|最少|最差|最短)的?|(?:最高|最大|最多|最好|最长)的?)\s*(\d+|[一二两三四五六七八九十]+)\s*[个家位名种条项款类所只人]/gu;

/** Reads the question against the table it names best (the first table when it names none). */
export function readQuestion(text: string, look: Look): Reading | undefined {
  let best: { reading: Reading; score: number } | undefined;
  for (const table of look.tables) {
    if (table.columns.length === 0) continue;
    const reading = readAgainst(text, table);
    const score =
      reading.columns.reduce((sum, m) => sum + m.score, 0) +
      reading.values.reduce((sum, m) => sum + m.score, 0);
    if (!best || score > best.score + 1e-9) best = { reading, score };
  }
  return best?.reading;
}

export function readAgainst(text: string, table: TableInfo): Reading {
  const cues = findCues(text);
  const [columns, values] = resolveOverlaps(
    findColumnMentions(text, table.columns),
    findValueMentions(text, table.columns),
  );
  const named = (n: NumberMention) =>
    [...columns, ...values].some((m) => n.start >= m.start && n.end <= m.end);
  const topN = findTopN(text);
  const numbers = findNumbers(text).filter(
    (n) => !named(n) && !(topN && n.start >= topN.start && n.end <= topN.end) && !(n.spelled && n.ordinal),
  );
  const conditions = findConditions(text, numbers, columns, timeColumn(table), table.columns);
  return {
    text,
    language: hasChinese(text) ? 'zh' : 'en',
    table,
    cues,
    columns,
    values,
    numbers,
    conditions,
    ...(topN ? { topN } : {}),
  };
}

/**
 * One name per place in the question: where a column's name and a value overlap, the
 * stronger (then longer) one stays; of columns named at the same place, the best.
 */
function resolveOverlaps(
  columns: ColumnMention[],
  values: ValueMention[],
): [ColumnMention[], ValueMention[]] {
  type Any = { kind: 'column'; m: ColumnMention } | { kind: 'value'; m: ValueMention };
  const all: Any[] = [
    ...columns.map((m) => ({ kind: 'column' as const, m })),
    ...values.map((m) => ({ kind: 'value' as const, m })),
  ];
  const weight = (a: Any) =>
    a.m.score * (1 + 0.15 * (a.m.end - a.m.start) ** 0.5) +
    (a.kind === 'column' ? 0.01 + 0.005 * a.m.coverage : 0);
  all.sort((a, b) => weight(b) - weight(a));
  const kept: Any[] = [];
  for (const candidate of all) {
    const clash = kept.some((k) => candidate.m.start < k.m.end && k.m.start < candidate.m.end);
    // The same value in two columns ("London" as a city and as a region) is kept for both.
    const sameValue = kept.some(
      (k) =>
        k.kind === 'value' &&
        candidate.kind === 'value' &&
        k.m.start === candidate.m.start &&
        k.m.end === candidate.m.end &&
        k.m.column !== candidate.m.column,
    );
    if (!clash || sameValue) kept.push(candidate);
  }
  return [
    kept.flatMap((k) => (k.kind === 'column' ? [k.m] : [])),
    kept.flatMap((k) => (k.kind === 'value' ? [k.m] : [])),
  ];
}

function findTopN(text: string): Reading['topN'] {
  for (const match of text.matchAll(WHICH_N)) {
    const raw = match[1]!.toLowerCase();
    const n = /^\d+$/.test(raw) ? Number(raw) : SPELLED[raw];
    const rest = text.slice(match.index + match[0].length);
    // "which 3 member states have the highest …", "the 5 tallest buildings"
    if (
      n &&
      n > 1 &&
      n < 1000 &&
      /^(?:[\p{L}'-]+\s+){0,4}(?:\p{L}+est|most|least|top|best|worst)\b/iu.test(rest)
    ) {
      const asc = /^(?:[\p{L}'-]+\s+){0,4}(?:lowest|smallest|least|fewest|worst|shortest)\b/iu.test(rest);
      return {
        n,
        order: asc ? 'asc' : 'desc',
        start: match.index,
        end: match.index + match[0].length,
        tableOrder: false,
      };
    }
  }
  for (const match of text.matchAll(CHINESE_N)) {
    const raw = match[2]!;
    const n = /^\d+$/.test(raw) ? Number(raw) : chineseNumeral(raw);
    if (!n || n < 2 || n > 1000) continue;
    // "哪2个…最低": the order is said by the extreme, wherever it stands.
    const asc = match[1] !== undefined || (/^哪/u.test(match[0]) && /最(?:低|小|少|差|短)/u.test(text));
    return {
      n,
      order: asc ? 'asc' : 'desc',
      start: match.index,
      end: match.index + match[0].length,
      tableOrder: false,
    };
  }
  for (const match of text.matchAll(TOP_N)) {
    const word = (match[1] ?? '').toLowerCase();
    const raw = match[2] ?? match[3] ?? match[4] ?? match[5] ?? '';
    const n = /^\d+$/.test(raw) ? Number(raw) : (SPELLED[raw.toLowerCase()] ?? chineseNumeral(raw));
    if (!n || n > 1000) continue;
    const asc = ['bottom', 'last', 'worst', 'lowest'].includes(word) || match[5] !== undefined;
    return {
      n,
      order: asc ? 'asc' : 'desc',
      start: match.index,
      end: match.index + match[0].length,
      tableOrder: word === 'first' || word === 'last',
    };
  }
  return undefined;
}
