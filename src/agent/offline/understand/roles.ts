import type { Measure } from '../plan.ts';
import { type ColumnInfo, isCategorical, isNumeric, type TableInfo } from '../schema.ts';
import { tokenize } from '../text/tokens.ts';
import { cuesOf } from './cues.ts';
import type { ColumnMention } from './mentions.ts';
import type { Reading } from './reading.ts';
import { isYearColumn, timeColumn } from './time-column.ts';

const LABEL_WORDS = new Set(
  'name title player team country nation city club company school person driver artist singer film song party state province region district county municipality airport station university institution member episode model type product item brand customer employee 名称 名字 姓名 国家 城市 地区 公司 产品'.split(
    ' ',
  ),
);
const ID_WORDS = new Set([
  'id',
  'rank',
  'no',
  'number',
  'code',
  'index',
  'draw',
  'pos',
  'position',
  'place',
  'seed',
  'pick',
  '#',
  '编号',
  '序号',
]);

const words = (column: ColumnInfo) => tokenize(column.name).map((t) => t.word);

/** Whether a column is an identifier or a rank rather than a quantity ("id", "rank", "no."). */
export function isIdLike(column: ColumnInfo): boolean {
  if (/^\s*(?:#|no\.|nº|n°)/i.test(column.name)) return true;
  const w = words(column);
  return w.length > 0 && w.length <= 2 && w.some((x) => ID_WORDS.has(x));
}

/** The column that names the rows: a text column with a different value in (nearly) every row. */
export function labelColumn(table: TableInfo): ColumnInfo | undefined {
  const text = table.columns.filter((c) => c.kind === 'text');
  const score = (c: ColumnInfo) =>
    (c.distinct >= 0.9 * (table.rows - c.missing) ? 2 : c.distinct / Math.max(1, table.rows)) +
    (words(c).some((w) => LABEL_WORDS.has(w)) ? 1 : 0) -
    table.columns.indexOf(c) * 0.01;
  return (
    text.sort((a, b) => score(b) - score(a))[0] ??
    table.columns.find((c) => c.kind !== 'number') ??
    table.columns[0]
  );
}

/** The column a "which …"/"who"/"when" question asks for, and where it was asked. */
export function askedEntity(
  reading: Reading,
): { column: ColumnInfo; start: number; named: boolean } | undefined {
  for (const cue of cuesOf(reading.cues, 'which', 'who', 'when')) {
    // "…students who took…", "…the row which has…": a relative pronoun, not a question word.
    const before = reading.text.slice(0, cue.start);
    const chinese = /\p{Script=Han}/u.test(cue.text);
    if (
      !chinese &&
      before.trim() &&
      !/(?:^|[,;:.?!]|\b(?:in|on|at|for|from|by|to|with|of|and|or|during|among))\s*$/i.test(before)
    )
      continue;
    if (cue.kind === 'when') {
      const time = timeColumn(reading.table);
      if (time) return { column: time, start: cue.start, named: true };
      continue;
    }
    const what = cue.text.toLowerCase() === 'what';
    // The noun phrase after "which": up to its verb ("which beam type has …", "which 3 member states have …").
    const rest = reading.text.slice(cue.end);
    const verb = chinese
      ? /[，,？?。]/u.exec(rest)
      : /\b(?:has|have|had|is|are|was|were|did|does|do|won|got|scored|achieved|received|made|with|in|of|from|among)\b|[,?]/i.exec(
          rest,
        );
    const phraseEnd = cue.end + (verb ? verb.index : rest.length);
    const inPhrase = reading.columns.filter(
      (m) => m.start >= cue.end && m.start < phraseEnd && m.start - cue.end <= (what ? 6 : 30),
    );
    // In Chinese the thing asked about is the name nearest after 哪个 ("哪个region的salesAmount最高",
    // "哪个最贵的产品"): Chinese puts what describes it before it, never after.
    // What comes before a 的 holding 最 describes it ("哪个销售额最高的地区"): the name after that 的.
    const clause = chinese ? /^[^的]*最[^的]*的/u.exec(rest) : null;
    const described = clause ? cue.end + clause[0].length : cue.end;
    const next = chinese
      ? inPhrase.filter((m) => m.start >= described).sort((a, b) => a.start - b.start || b.score - a.score)[0]
      : inPhrase.sort((a, b) => b.score - a.score || b.start - a.start)[0];
    const gap = next ? reading.text.slice(cue.end, next.start) : '';
    if (next && (!what || /^\s*(?:the\s+)?$/i.test(gap)))
      return { column: next.column, start: cue.start, named: true };
    if (what) continue;
    const label = labelColumn(reading.table);
    if (label) return { column: label, start: cue.start, named: false };
  }
  return undefined;
}

/** Numeric columns the question names, nearest after `from` first, skipping `exclude`. */
export function numericMentions(
  reading: Reading,
  from = 0,
  exclude: Set<string> = new Set(),
): ColumnMention[] {
  const usable = reading.columns.filter((m) => isNumeric(m.column) && !exclude.has(m.column.name));
  const after = usable.filter((m) => m.start >= from).sort((a, b) => a.start - b.start);
  const before = usable.filter((m) => m.start < from).sort((a, b) => b.start - a.start);
  return [...after, ...before];
}

/** Categorical columns the question names, in order. */
export function categoricalMentions(reading: Reading): ColumnMention[] {
  return reading.columns
    .filter((m) => isCategorical(m.column, reading.table.rows))
    .sort((a, b) => a.start - b.start);
}

const DIVIDED =
  /\b(?:divided\s+by|over|per|relative\s+to|out\s+of|as\s+a\s+(?:share|percentage|proportion|fraction)\s+of)\b|\/|除以/iu;
const RATIO_OF = /\b(?:ratio|proportion)\s+of\s+(?:the\s+)?$/i;
const DIFFERENCE_BETWEEN = /\b(?:difference|gap|margin)\s+(?:in\s+\S+\s+)?between\s+(?:the\s+)?$/i;

/**
 * A measure the question defines from two or more columns: "wins divided by races",
 * "the ratio of A to B", "the difference between A and B", "A exceeds B by the largest
 * margin", "A + B + C", "improvement from 2009 to 2011" (columns named 2009 and 2011).
 */
export function combinedMeasure(reading: Reading): Measure | undefined {
  const numeric = reading.columns.filter((m) => isNumeric(m.column)).sort((a, b) => a.start - b.start);
  if (numeric.length < 2) return undefined;
  const text = reading.text;
  const percent = /\bpercentage\b|\bmultiplied by 100\b|\bin percent\b|\bas a percent|百分/i.test(text);
  const between = (a: ColumnMention, b: ColumnMention) => text.slice(a.end, b.start);
  const before = (a: ColumnMention) => text.slice(Math.max(0, a.start - 50), a.start);
  // An extreme of a difference ("the least difference", "the largest gap") is about its size.
  const absolute = /\b(?:least|smallest|closest|minimum)\b[^.?]*\b(?:difference|gap)\b/i.test(text);
  const time = timeColumn(reading.table);
  for (let i = 0; i + 1 < numeric.length; i++) {
    const a = numeric[i]!;
    const b = numeric[i + 1]!;
    const gap = between(a, b);
    if (gap.length > 40 || a.column === b.column) continue;
    // "per year", "change over the years": periods, never a ratio to the time column or an id.
    const perPeriod =
      b.column === time || isIdLike(b.column) || isYearColumn(b.column) || b.column.kind === 'date';
    if (
      (DIVIDED.test(gap) && gap.length <= 25 && !perPeriod) ||
      (RATIO_OF.test(before(a)) && /^\s*(?:to|and)\s+(?:the\s+)?$/i.test(gap))
    )
      return combine('/', [a, b], percent);
    if (
      DIFFERENCE_BETWEEN.test(before(a)) &&
      /^\s*(?:and|vs\.?|versus)\s+(?:the\s+)?['"“]?\s*$/i.test(gap.replace(/['"”’]/g, ''))
    )
      return combine('-', [a, b], false, absolute);
    if (/\bexceed(?:s|ed)?\b|\bminus\b|\bmore than\b/i.test(gap)) return combine('-', [a, b], false);
    if (/\bdifference\b/i.test(before(a)) && /\b(?:compared\s+(?:to|with)|and|versus|vs)\b/i.test(gap))
      return combine('-', [a, b], false, absolute);
  }
  // "the most improvement from 2009 to 2011", where 2009 and 2011 are columns: the later minus the earlier.
  if (
    /\b(?:increase|improvement|improved|growth|change|grew|rise|gain|decline|decrease|drop)\w*/i.test(text)
  ) {
    for (let i = 0; i + 1 < numeric.length; i++) {
      const a = numeric[i]!;
      const b = numeric[i + 1]!;
      if (
        /\bfrom\s*$/i.test(text.slice(Math.max(0, a.start - 6), a.start)) &&
        /^\s*(?:to|and|until|through)\s*$/i.test(between(a, b))
      )
        return combine('-', [b, a], false);
    }
  }
  return summedColumns(reading, numeric);
}

function summedColumns(reading: Reading, numeric: ColumnMention[]): Measure | undefined {
  const text = reading.text;
  // "(M36 + M36B1 + M36B2)", "A and B combined", "the sum of A and B"
  const run: ColumnMention[] = [numeric[0]!];
  let best: ColumnMention[] = [];
  for (let i = 1; i < numeric.length; i++) {
    const gap = text.slice(numeric[i - 1]!.end, numeric[i]!.start);
    if (gap.length <= 12 && /^\s*(?:\+|,|and|plus|,\s*and)\s*$/i.test(gap)) run.push(numeric[i]!);
    else {
      if (run.length > best.length) best = [...run];
      run.splice(0, run.length, numeric[i]!);
    }
  }
  if (run.length > best.length) best = [...run];
  if (best.length < 2) return undefined;
  const first = best[0]!;
  const last = best.at(-1)!;
  const context = text.slice(Math.max(0, first.start - 30), Math.min(text.length, last.end + 20));
  const explicit = /\+/.test(text.slice(first.start, last.end));
  if (explicit || /\b(?:sum of|total of|combined|together|altogether)\b/i.test(context))
    return combine('+', best, false);
  return undefined;
}

function combine(
  op: '/' | '-' | '+',
  mentions: ColumnMention[],
  percent: boolean,
  absolute = false,
): Measure {
  const columns = mentions.map((m) => m.column.name);
  const symbol = { '/': '/', '-': '−', '+': '+' }[op];
  const label =
    (absolute ? `|${columns.join(` ${symbol} `)}|` : columns.join(` ${symbol} `)) + (percent ? ' (%)' : '');
  return {
    kind: 'combine',
    op,
    columns,
    label,
    ...(percent ? { percent } : {}),
    ...(absolute ? { absolute } : {}),
  };
}

const MEASUREMENT =
  /\b(?:rate|ratio|percent|percentage|average|avg|mean|per|density|length|width|height|depth|weight|age|price|score|temperature|speed|index|share)\b|%|\((?:cm|mm|m|km|kg|g|lb|in|ft)\)|率|均|价格|长度|高度|重量|年龄/i;
const SIZE_WORDS =
  /\b(?:longest|shortest|tallest|heaviest|lightest|oldest|youngest|widest|narrowest|fastest|slowest|deepest|hottest|coldest|cheapest)\b/i;

/**
 * How rows of one entity combine when it appears in several: averaged for measurements
 * ("the longest petals", a rate, a price), summed for amounts ("the most wins", sales).
 */
export function perEntityFor(measureName: string, question: string): 'sum' | 'mean' {
  return MEASUREMENT.test(measureName) || SIZE_WORDS.test(question) || namedAsRate(measureName, question)
    ? 'mean'
    : 'sum';
}

/** "the success rate" over a 0/1 `success` column asks for its mean, not its total. */
function namedAsRate(measureName: string, question: string): boolean {
  const name = measureName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\b${name}\\s+(?:rates?|ratios?|shares?|percentages?)\\b`, 'i').test(question);
}

/** Numeric columns of the table that are quantities (not ids, ranks or years). */
export function quantityColumns(table: TableInfo): ColumnInfo[] {
  const time = timeColumn(table);
  return table.columns.filter((c) => isNumeric(c) && !isIdLike(c) && c !== time);
}
