import { scanChineseNumbers } from './chinese.ts';
import { roundingOf, scanNumbers } from './scan.ts';
import type { IgnoredReason } from './types.ts';

/**
 * The numbers of a Markdown answer, each with what it claims: the interval of true values
 * its rounding (or its "about", "over", "<") allows, and whether it is a claim at all
 * (list numbers, section numbers, dates and "95% CI" are not).
 */
export interface AnswerNumber {
  /** As written: digits with sign, scale and percent (`-0.991`, `1.5亿`, `15 percent`, `<0.01`). */
  text: string;
  start: number;
  end: number;
  /** Scale applied; percent in percent. */
  value: number;
  /** The magnitudes consistent with the claim: |true value| ∈ [lo, hi]. */
  lo: number;
  hi: number;
  percent: boolean;
  /** Percentage points (`3 pp`, `3.3个百分点`), or a ratio (`2.5 times`, `3倍`). */
  unit?: 'points' | 'times';
  /** 1, or 1e3, 1e4 (万), 1e6, 1e8 (亿), 1e9 for a number written with a scale word. */
  scale: number;
  significant: number;
  /** Digits shown after the decimal point (negative with an exponent); 0 for Chinese integers. */
  decimals: number;
  /** Written after "p" / "p-value": compared with p-values only. */
  pValue: boolean;
  /** A bound written with `<`, "over", "不到"…: whether it is one, for the formula. */
  bound?: 'below' | 'above' | 'about';
  /** Structurally not a claim (a list number, a date, a confidence level, code). */
  role?: IgnoredReason;
  /** An integer where a year would be (in 2021, 2019–2021, 2021年). */
  yearLike: boolean;
  /**
   * In a fenced block that is not code: the answer presents it as a run's output, so it must
   * be printed there as written; a quote is not a computation (nor a unit change).
   */
  verbatim: boolean;
}

const PERCENT_WORD = /^\s?(?:percent(?:age points?)?|per cent|pp\b|个百分点)/i;
const POINTS_WORD = /points?|pp|个百分点/i;
const TIMES_AFTER = /^\s?(?:times\b|x\b|×(?!\s?10)|倍|-?fold\b)/i;
const SCALE_WORD: Array<[RegExp, number]> = [
  [/^\s?(?:trillion|tn)\b/i, 1e12],
  [/^\s?(?:billion|bn)\b/i, 1e9],
  [/^\s?(?:million|mn)\b/i, 1e6],
  [/^\s?thousand\b/i, 1e3],
  [/^[kK](?![A-Za-z\d])/, 1e3],
  [/^M(?![A-Za-z\d])/, 1e6],
  [/^B(?![A-Za-z\d])/, 1e9],
  [/^万亿/, 1e12],
  [/^千万/, 1e7],
  [/^百万/, 1e6],
  [/^万/, 1e4],
  [/^亿/, 1e8],
];
const ORDINAL_SUFFIX = /^(?:st|nd|rd|th)\b/;
const ORDINAL_BEFORE =
  /(?:\b(?:step|steps|figure|fig\.|table|tab\.|model|round|phase|stage|part|section|chapter|appendix|item|no\.|number|cell|question|task|group|cluster|class|level|top|rank|ranked|version|row|column|col|line|page|option|scenario|hypothesis|prompt)|#|第|图|表|步骤|步|任务|问题|模型|附录|章|节|簇|阶段|方案)\s*$/i;
const CONVENTION_AFTER = /^\s*(?:CI\b|C\.I\.|confidence|置信)/i;
const CONVENTION_BEFORE =
  /(?:confidence(?: level| interval)?(?: of| at)?|置信(?:水平|度|区间)?(?:为|是)?)\s*$/i;
const P_BEFORE =
  /(?:\bp(?:[-_ ]?values?)?|p值|显著性(?:水平)?)\s*(?:[<>≤≥=]=?|&lt;|&gt;|is|of|was|were|为|是|:|：)?\s*$/i;
const ABOUT_BEFORE =
  /(?:\b(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|ca\.)|约|大约|大概|将近|接近|近)\s*$/i;
const ABOVE_BEFORE =
  /(?:\b(?:over|more than|above|exceeds?|exceeding|at least|greater than|higher than)|超过|逾|多于|高于|大于|至少)\s*$/i;
const BELOW_BEFORE =
  /(?:\b(?:under|less than|below|fewer than|at most|lower than)|不到|少于|低于|小于|不足|至多)\s*$/i;
const YEAR_BEFORE =
  /(?:\b(?:in|since|from|to|until|till|by|during|year|years|fy|fiscal|before|after|between|through|circa|early|late|mid|of)|\bq[1-4]|[-–—~至到]|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?\s*$/i;
const YEAR_AFTER = /^(?:\s?年|'s\b|s\b|\s?[-–—~至到]\s?\d{2,4}\b|\s?(?:年度|财年))/;
const MONTH_BEFORE =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s*$/i;
const DATES =
  /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?\b|\b\d{1,2}\/\d{1,2}\/\d{4}\b|\d{4}年\d{1,2}月(?:\d{1,2}日)?|\d{1,2}月\d{1,2}日|\b\d{1,2}:\d{2}(?::\d{2})?\b/g;
const CODE_LANGUAGES = /^(?:python|py|python3|sql|r|js|javascript|ts|bash|sh|shell|json|yaml|toml)$/i;

/** Spans of the answer that hold no claims (URLs, file names, HTML tags) or code. */
function masks(text: string): {
  skip: Array<[number, number]>;
  code: Array<[number, number]>;
  output: Array<[number, number]>;
} {
  const skip: Array<[number, number]> = [];
  const code: Array<[number, number]> = [];
  const output: Array<[number, number]> = [];
  const patterns = [
    /\]\(([^)\s]*)(?:\s+"[^"]*")?\)/g, // link and image destinations
    /!\[[^\]]*\]/g, // image alt text
    /<https?:[^>]*>|https?:\/\/[^\s)>\]]+/g, // URLs
    /<\/?[A-Za-z][^<>]*>/g, // HTML tags
    /[\w\-.]+\.(?:png|jpe?g|svg|gif|webp|csv|tsv|xlsx?|json|txt|md|html?|pdf|ipynb|py|parquet|sqlite|db)\b/gi,
    /\brid\s*=?\s*r\d+|\br\d+(?:\s*[-–,]\s*r\d+)*/g, // citations of query rows
  ];
  for (const pattern of patterns)
    for (const m of text.matchAll(pattern)) skip.push([m.index, m.index + m[0].length]);
  // Fenced code in a programming language is code, not a claim; other fences (quoted output, tables) are checked.
  let fence: { marks: string; start: number; lang: string } | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const marks = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/.exec(line);
    if (marks) {
      if (!fence) fence = { marks: marks[1]!, start: offset, lang: marks[2] ?? '' };
      else if (marks[1]![0] === fence.marks[0] && marks[1]!.length >= fence.marks.length) {
        (CODE_LANGUAGES.test(fence.lang) ? code : output).push([fence.start, offset + line.length]);
        fence = undefined;
      }
    }
    offset += line.length + 1;
  }
  if (fence) (CODE_LANGUAGES.test(fence.lang) ? code : output).push([fence.start, text.length]);
  return { skip, code, output };
}

function inside(spans: Array<[number, number]>, start: number, end: number): boolean {
  return spans.some(([a, b]) => start < b && end > a);
}

/** Every number of a Markdown answer, in order. */
export function answerNumbers(text: string): AnswerNumber[] {
  const { skip, code, output } = masks(text);
  const numbers: AnswerNumber[] = [];
  const dates: Array<[number, number]> = [];
  for (const m of text.matchAll(DATES)) {
    const span: [number, number] = [m.index, m.index + m[0].length];
    if (inside(skip, span[0], span[1])) continue;
    dates.push(span);
    numbers.push(plain(m[0], span[0], span[1], Number.parseFloat(m[0]), 'date'));
  }
  for (const token of scanNumbers(text)) {
    if (inside(skip, token.start, token.end) || inside(dates, token.start, token.end)) continue;
    // Part of a name: DeepAnalyze-8B, GPT-4, COVID-19.
    if (text[token.start - 1] === '-' && /[A-Za-z]/.test(text[token.start - 2] ?? '')) continue;
    let end = token.end;
    let percent = token.percent;
    let scale = 1;
    let unit: AnswerNumber['unit'];
    const after = text.slice(end, end + 24);
    if (!percent) {
      const word = PERCENT_WORD.exec(after);
      if (word) {
        percent = true;
        if (POINTS_WORD.test(word[0])) unit = 'points';
        end += word[0].length;
      } else {
        for (const [pattern, factor] of SCALE_WORD) {
          const scaled = pattern.exec(after);
          if (scaled && !/^千万?[克米瓦]/.test(after)) {
            scale = factor;
            end += scaled[0].length;
            break;
          }
        }
      }
    }
    const lineStart = text.lastIndexOf('\n', token.start - 1) + 1;
    const before = text.slice(Math.max(lineStart, token.start - 40), token.start);
    const lineBefore = text.slice(lineStart, token.start);
    const rest = text.slice(end, end + 24);
    if (!unit && TIMES_AFTER.test(rest)) unit = 'times';
    const integer = token.decimals === 0 && !percent && scale === 1 && !token.grouped && !token.scientific;

    let role: IgnoredReason | undefined;
    if (inside(code, token.start, end)) role = 'code';
    else if (
      ORDINAL_SUFFIX.test(rest) ||
      (integer && ORDINAL_BEFORE.test(before)) ||
      (/^\s*(?:[-*+]\s+)?[(（]?$/.test(lineBefore) && /^[.)、）:]\s?/.test(rest) && integer)
    )
      role = 'ordinal';
    else if (/^\s{0,3}#{1,6}\s+$/.test(lineBefore))
      role = 'ordinal'; // "## 2. Results", "### 6.2 Results"
    else if (percent && [90, 95, 99, 99.9].includes(token.value) && CONVENTION_AFTER.test(rest))
      role = 'convention';
    else if (percent && CONVENTION_BEFORE.test(before)) role = 'convention';
    else if (integer && token.value <= 31 && MONTH_BEFORE.test(before)) role = 'date';

    // What the number claims: its rounding, widened or made one-sided by the words before it.
    const symbol = /(<=|>=|[<>≤≥≈~∼]|&lt;|&gt;)\s*$/.exec(before);
    let bound: AnswerNumber['bound'];
    if (symbol)
      bound = /[<≤]|&lt;/.test(symbol[1]!) ? 'below' : /[>≥]|&gt;/.test(symbol[1]!) ? 'above' : 'about';
    else if (ABOUT_BEFORE.test(before) || /^\s?左右/.test(rest)) bound = 'about';
    else if (ABOVE_BEFORE.test(before)) bound = 'above';
    else if (BELOW_BEFORE.test(before)) bound = 'below';
    const pValue = P_BEFORE.test(before.replace(/(<=|>=|[<>≤≥≈~∼=]|&lt;|&gt;)\s*$/, ''));
    const start = symbol ? token.start - symbol[0].length : token.start;

    const magnitude = Math.abs(token.value) * scale;
    const rounding = roundingOf(token) * scale;
    // A bound or a round number said loosely ("about 2,000", "over 1,300") is loose to its last
    // non-zero digit: one unit of it.
    const coarse = 10 ** (token.trailingZeros - token.decimals) * scale;
    let lo = magnitude - rounding;
    let hi = magnitude + rounding;
    if (bound === 'about') [lo, hi] = [magnitude - coarse / 2, magnitude + coarse / 2];
    else if (bound === 'above') [lo, hi] = [magnitude, magnitude + coarse];
    else if (bound === 'below')
      [lo, hi] = pValue ? [0, magnitude] : [Math.max(0, magnitude - coarse), magnitude];

    const yearLike =
      integer &&
      token.value >= 1800 &&
      token.value <= 2100 &&
      (YEAR_BEFORE.test(before) || YEAR_AFTER.test(rest));
    numbers.push({
      text: text.slice(start, end),
      start,
      end,
      value: token.value * scale,
      lo: Math.max(0, lo),
      hi,
      percent,
      ...(unit ? { unit } : {}),
      scale,
      significant: token.significant,
      decimals: token.decimals,
      pValue,
      ...(bound ? { bound } : {}),
      ...(role ? { role } : {}),
      yearLike,
      verbatim: inside(output, token.start, end),
    });
  }
  for (const token of scanChineseNumbers(text)) {
    if (
      inside(skip, token.start, token.end) ||
      numbers.some((n) => token.start < n.end && token.end > n.start)
    )
      continue;
    const rounding = 0.5 * 10 ** -token.decimals;
    const number = plain(
      text.slice(token.start, token.end),
      token.start,
      token.end,
      token.value,
      token.ordinal ? 'ordinal' : inside(code, token.start, token.end) ? 'code' : undefined,
    );
    number.lo = Math.max(0, token.value - rounding);
    number.hi = token.value + rounding;
    number.percent = token.percent;
    number.decimals = token.decimals;
    number.verbatim = inside(output, token.start, token.end);
    numbers.push(number);
  }
  return numbers.sort((a, b) => a.start - b.start);
}

function plain(text: string, start: number, end: number, value: number, role?: IgnoredReason): AnswerNumber {
  return {
    text,
    start,
    end,
    value,
    lo: value,
    hi: value,
    percent: false,
    scale: 1,
    significant: 1,
    decimals: 0,
    pValue: false,
    ...(role ? { role } : {}),
    yearLike: false,
    verbatim: false,
  };
}
