/** A number written in a question, with where it is. */
export interface NumberMention {
  value: number;
  start: number;
  end: number;
  /** Written with `%` or "percent". */
  percent: boolean;
  /** Written as an ordinal: 4th, third, 第4. */
  ordinal: boolean;
  /** A whole number from 1000 to 2100 written without separators: most likely a year. */
  year: boolean;
  /** Spelled out ("three") rather than written in digits. */
  spelled: boolean;
  /** The scale word it was written with ("billion" in "300 billion"), already applied to `value`. */
  scale?: string;
}

/** Numbers and ordinals written as words (the question reader uses them too). */
export const SPELLED: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
};
const ORDINAL_WORDS = new Set([
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
]);
const CHINESE_DIGITS: Record<string, number> = {
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};
const SCALE: Record<string, number> = {
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  mn: 1e6,
  billion: 1e9,
  bn: 1e9,
  万: 1e4,
  亿: 1e8,
};

const NUMBER =
  /(?<![\p{Script=Latin}\p{N}.])([-−]?)[$€£¥]?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:\s?(%|percent\b|per cent\b|st\b|nd\b|rd\b|th\b|thousand\b|million\b|billion\b|bn\b|mn\b|k\b|万|亿))?/giu;
const WORD_NUMBER = new RegExp(`\\b(${Object.keys(SPELLED).join('|')})\\b`, 'gi');
const CHINESE_NUMBER = /([第前后])([一二两三四五六七八九十]+)/gu;

/** Every number in a text, in order: digits, spelled-out numbers and Chinese numerals. */
export function findNumbers(text: string): NumberMention[] {
  const found: NumberMention[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const digits = match[2]!;
    const suffix = (match[3] ?? '').toLowerCase();
    let value = Number(digits.replace(/,/g, '')) * (match[1] ? -1 : 1);
    if (SCALE[suffix]) value *= SCALE[suffix];
    const start = match.index;
    const end = start + match[0].length;
    // A number inside a word or a name ("F-16", "win75"): still a number, but not a year.
    const plainInteger = /^\d+$/.test(digits);
    const ordinal = ['st', 'nd', 'rd', 'th'].includes(suffix) || text[start - 1] === '第';
    found.push({
      value,
      start,
      end,
      percent: suffix === '%' || suffix.startsWith('per'),
      ordinal,
      year: plainInteger && !suffix && value >= 1000 && value <= 2100,
      spelled: false,
      ...(SCALE[suffix] ? { scale: suffix } : {}),
    });
  }
  for (const match of text.matchAll(WORD_NUMBER)) {
    const word = match[1]!.toLowerCase();
    // "first"/"second" are often not numbers ("the first year"); kept, marked as ordinals.
    found.push({
      value: SPELLED[word]!,
      start: match.index,
      end: match.index + match[0].length,
      percent: false,
      ordinal: ORDINAL_WORDS.has(word),
      year: false,
      spelled: true,
    });
  }
  for (const match of text.matchAll(CHINESE_NUMBER)) {
    const value = chineseNumeral(match[2]!);
    if (value === undefined) continue;
    const start = match.index + 1;
    found.push({
      value,
      start,
      end: start + match[2]!.length,
      percent: false,
      ordinal: match[1] === '第',
      year: false,
      spelled: true,
    });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** 一 … 九十九 as a number. */
export function chineseNumeral(text: string): number | undefined {
  if (text.length === 1) return CHINESE_DIGITS[text];
  const ten = text.indexOf('十');
  if (ten < 0) return undefined;
  const tens = ten === 0 ? 1 : CHINESE_DIGITS[text[0]!];
  const ones = ten === text.length - 1 ? 0 : CHINESE_DIGITS[text[ten + 1]!];
  return tens === undefined || ones === undefined ? undefined : tens * 10 + ones;
}
