import type { ColumnInfo } from '../schema.ts';
import { fuzzyEqual } from '../text/similarity.ts';
import { contentWords, nameForms, type Token, tokenize } from '../text/tokens.ts';
import { STOP_WORDS } from '../text/words.ts';

/** Where a question names a column. */
export interface ColumnMention {
  column: ColumnInfo;
  /** 1 for the column's whole name, less for part of it or a misspelling. */
  score: number;
  /** Character offsets in the question. */
  start: number;
  end: number;
  /** Question tokens the mention covers. */
  words: number;
  /** The share of the name's words (stop words too) the question says: "points" is all of "points", half of "points for". */
  coverage: number;
}

/** Where a question names a value of a column ("North", "Wattstown RFC"). */
export interface ValueMention {
  column: ColumnInfo;
  value: string;
  score: number;
  start: number;
  end: number;
  /** `equals` for the whole value, `contains` for a distinctive part of it. */
  mode: 'equals' | 'contains';
}

/** Short forms seen in column names, read as the word they stand for. */
const SHORT_FORMS: Record<string, string> = {
  no: 'number',
  num: 'number',
  nbr: 'number',
  pct: 'percent',
  avg: 'average',
  pop: 'population',
  qty: 'quantity',
  amt: 'amount',
  yr: 'year',
  pts: 'point',
  apps: 'appearance',
  app: 'appearance',
  '%': 'percent',
  temp: 'temperature',
  dept: 'department',
  govt: 'government',
  intl: 'international',
  pos: 'position',
  m: 'meter',
  km: 'kilometer',
  ft: 'foot',
  kg: 'kilogram',
  mi: 'mile',
  sqmi: 'mile',
  hp: 'horsepower',
  yds: 'yard',
  min: 'minute',
  sec: 'second',
};

/** Words that say little about which column is meant: they count for less in a match. */
const WEAK_WORDS = new Set([
  'total',
  'number',
  'average',
  'mean',
  'percent',
  'percentage',
  'rate',
  'count',
  'value',
  'amount',
  'share',
  'no',
  'per',
  'of',
  'in',
  'usd',
  'million',
  'billion',
  'thousand',
]);
const weightOf = (word: string) =>
  WEAK_WORDS.has(word) || /^\d+$/.test(word) || (word.length <= 2 && !isHan(word)) ? 0.5 : 1;

/** Single-word values that are more likely ordinary words of a question than the value meant. */
const WEAK_VALUES = new Set([
  'total',
  'all',
  'average',
  'mean',
  'sum',
  'other',
  'others',
  'none',
  'yes',
  'no',
  'unknown',
  'more',
  'less',
  'year',
  'years',
  'number',
  'overall',
  'na',
  'n/a',
]);

/** A word without its ending ("played", "playing" → "play"; "scored", "score" → "scor"). */
const stem = (word: string) => word.replace(/(?:ing|ed|es|s|e)$/, '');

const isHan = (word: string) => /\p{Script=Han}/u.test(word);

/** How well a question word stands for a word of a name: 1 the same, less for near forms, 0 not. */
export function wordMatch(asked: string, named: string): number {
  if (asked === named) return 1;
  if (isHan(asked) || isHan(named)) return 0;
  const long = SHORT_FORMS[named];
  if (long && (asked === long || (asked.startsWith(long) && asked.length <= long.length + 3))) return 0.9;
  if (fuzzyEqual(asked, named)) return 0.85;
  if (asked.length >= 4 && named.length >= 4 && stem(asked) === stem(named)) return 0.85;
  if (named.length >= 3 && asked.length > named.length + 1 && asked.startsWith(named)) return 0.7;
  if (asked.length >= 4 && named.length > asked.length + 1 && named.startsWith(asked)) return 0.6;
  return 0;
}

interface PhraseMatch {
  score: number;
  from: number;
  to: number;
  /** The share of the phrase's words (stop words too) matched. */
  coverage: number;
}

/**
 * The best place in the question's tokens for a phrase: its content words in a short
 * window (any order, stop words and the phrase's own other words allowed between), scored
 * by how many of them matched and how well.
 */
export function matchPhrase(
  tokens: Token[],
  phrase: string[],
  options: { minScore?: number } = {},
): PhraseMatch | undefined {
  return matchPhraseAll(tokens, phrase, options)[0];
}

/** Every place the phrase matches (each start once), best first. */
export function matchPhraseAll(
  tokens: Token[],
  phrase: string[],
  options: { minScore?: number } = {},
): PhraseMatch[] {
  const content = contentWords(phrase);
  const han = content.some(isHan);
  const own = new Set(phrase);
  const weights = content.map(weightOf);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const found: PhraseMatch[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!content.some((w) => wordMatch(tokens[i]!.word, w) > 0)) continue;
    const used = new Set<number>();
    let quality = 0;
    let weighted = 0;
    let gaps = 0;
    let gapsBefore = 0;
    let ownWords = 0;
    let ownBefore = 0;
    let last = i;
    for (let j = i; j < tokens.length && j <= i + content.length + 2; j++) {
      const word = tokens[j]!.word;
      let pick = -1;
      let q = 0;
      content.forEach((w, k) => {
        const m = used.has(k) ? 0 : wordMatch(word, w);
        if (m > q) [pick, q] = [k, m];
      });
      if (pick >= 0) {
        used.add(pick);
        quality += q;
        weighted += q * weights[pick]!;
        last = j;
        gapsBefore = gaps;
        ownBefore = ownWords;
      } else if (!han && (STOP_WORDS.has(word) || own.has(word))) {
        gaps += own.has(word) ? 0 : 1;
        ownWords += own.has(word) ? 1 : 0;
      } else break;
      if (used.size === content.length) break;
    }
    if (han && used.size < Math.min(2, content.length)) continue;
    // A unit or a generic word alone ("m" for "meters", "total") does not name a column that has others.
    if (weights.some((w) => w === 1) && ![...used].some((k) => weights[k] === 1)) continue;
    // How much of the name the question says (recall), and how much of what it says is the name (precision).
    const recall = weighted / totalWeight;
    const precision = quality / (used.size + gapsBefore);
    const score = (2 * precision * recall) / (precision + recall);
    const coverage = Math.min(1, (used.size + ownBefore) / phrase.length);
    if (score >= (options.minScore ?? 0.3)) found.push({ score, from: i, to: last + 1, coverage });
  }
  return found.sort((a, b) => b.score - a.score || a.to - a.from - (b.to - b.from) || a.from - b.from);
}

/**
 * Every place the question names a column, best first. A column named twice ("the highest
 * research funding … the lowest research funding (000)") has a mention at each place.
 */
export function findColumnMentions(question: string, columns: ColumnInfo[]): ColumnMention[] {
  const tokens = tokenize(question);
  const found: ColumnMention[] = [];
  for (const column of columns) {
    const places: PhraseMatch[] = [];
    const matches = nameForms(column.name).flatMap((form) =>
      form.length ? matchPhraseAll(tokens, form, { minScore: 0.45 }) : [],
    );
    matches.sort((a, b) => b.score - a.score);
    const best = matches[0]?.score ?? 0;
    for (const match of matches) {
      if (match.score < best - 0.3 || places.some((p) => match.from < p.to && p.from < match.to)) continue;
      places.push(match);
    }
    for (const place of places)
      found.push({
        column,
        score: place.score,
        start: tokens[place.from]!.start,
        end: tokens[place.to - 1]!.end,
        words: place.to - place.from,
        coverage: place.coverage,
      });
  }
  return found.sort((a, b) => b.score - a.score || b.coverage - a.coverage || b.words - a.words);
}

/** Every value of a text-like column the question names, best first. */
export function findValueMentions(question: string, columns: ColumnInfo[]): ValueMention[] {
  const tokens = tokenize(question);
  const found: ValueMention[] = [];
  for (const column of columns) {
    const values = column.values ?? [];
    if (column.kind === 'number' || column.kind === 'numeric-text' || values.length === 0) continue;
    const wordsOf = values.map(([value]) => tokenize(value).map((t) => t.word));
    // How many values each word appears in: a word most values share names none of them.
    const spread = new Map<string, number>();
    for (const words of wordsOf) for (const w of new Set(words)) spread.set(w, (spread.get(w) ?? 0) + 1);
    values.forEach(([value], index) => {
      const words = wordsOf[index]!;
      if (words.length === 0 || words.every((w) => /^\d+$/.test(w))) return;
      const whole = exactRun(tokens, words);
      if (whole) {
        found.push({ column, value, score: whole.score, start: whole.start, end: whole.end, mode: 'equals' });
        return;
      }
      const distinctive = words.filter(
        (w) => !STOP_WORDS.has(w) && w.length >= 4 && (spread.get(w) ?? 0) <= Math.max(1, values.length / 4),
      );
      if (distinctive.length === 0 || words.length < 2) return;
      const part = partRun(tokens, words, new Set(distinctive));
      if (!part) return;
      found.push({
        column,
        value,
        score: 0.6 * (part.length / words.length) + 0.2,
        start: tokens[part.from]!.start,
        end: tokens[part.from + part.length - 1]!.end,
        mode: 'contains',
      });
    });
  }
  found.push(...placeMentions(question, columns));
  return found.sort((a, b) => b.score - a.score || b.end - b.start - (a.end - a.start));
}

/** Words for finishing places, for columns that write places as "1st", "2nd", "3rd". */
const PLACES: [RegExp, string][] = [
  [/\b(?:gold(?:\s+medals?)?|won|wins?|winner|first\s+place|champion(?:ship)?)\b/gi, '1st'],
  [/\b(?:silver(?:\s+medals?)?|second\s+place|runner[-\s]up)\b/gi, '2nd'],
  [/\b(?:bronze(?:\s+medals?)?|third\s+place)\b/gi, '3rd'],
];

/** "won a gold medal" as the value "1st" of a column of places, when the table has one. */
function placeMentions(question: string, columns: ColumnInfo[]): ValueMention[] {
  const found: ValueMention[] = [];
  for (const column of columns) {
    const values = (column.values ?? []).map(([v]) => v);
    const ordinal = values.filter((v) => /^\s*\d+(?:st|nd|rd|th)\b/i.test(v)).length;
    if (!values.some((v) => /^\s*1st\b/i.test(v)) || ordinal < values.length / 2) continue;
    for (const [pattern, place] of PLACES) {
      const value = values.find((v) => v.trim().toLowerCase() === place);
      if (!value) continue;
      for (const match of question.matchAll(pattern))
        found.push({
          column,
          value,
          score: 0.8,
          start: match.index,
          end: match.index + match[0].length,
          mode: 'equals',
        });
    }
  }
  return found;
}

/** The longest run of a value's words, in order, in the question, that holds a distinctive word. */
function partRun(
  tokens: Token[],
  words: string[],
  distinctive: Set<string>,
): { from: number; length: number } | undefined {
  let best: { from: number; length: number } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    for (let k = 0; k < words.length; k++) {
      let length = 0;
      while (
        i + length < tokens.length &&
        k + length < words.length &&
        tokens[i + length]!.word === words[k + length]
      )
        length++;
      const run = words.slice(k, k + length);
      if (length > 0 && run.some((w) => distinctive.has(w)) && (!best || length > best.length))
        best = { from: i, length };
    }
  }
  return best;
}

/** The value's words one after another in the question (each the same word, or misspelt if long). */
function exactRun(
  tokens: Token[],
  words: string[],
): { score: number; start: number; end: number } | undefined {
  for (let i = 0; i + words.length <= tokens.length; i++) {
    let quality = 0;
    let ok = true;
    for (let k = 0; k < words.length && ok; k++) {
      const asked = tokens[i + k]!.word;
      const named = words[k]!;
      if (asked === named) quality += 1;
      else if (named.length >= 5 && fuzzyEqual(asked, named)) quality += 0.85;
      else ok = false;
    }
    if (!ok) continue;
    // A single common word ("total", "all") is too weak to be a value on its own.
    const only = words[0]!;
    if (
      words.length === 1 &&
      (STOP_WORDS.has(only) || WEAK_VALUES.has(only) || (only.length < 2 && !isHan(only)))
    )
      continue;
    return { score: quality / words.length, start: tokens[i]!.start, end: tokens[i + words.length - 1]!.end };
  }
  return undefined;
}
