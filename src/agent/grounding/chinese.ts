/**
 * Chinese numerals where answers commonly use them: counts before a measure word (三个模型,
 * 十二项), percentages (百分之四十二点六五), fractions (三分之一) and large numbers (两千, 一万二千).
 * Numerals inside ordinary words (一些, 统一, 十分, 万一) are words, not numbers, and are skipped.
 */

export interface ChineseNumberToken {
  start: number;
  end: number;
  value: number;
  decimals: number;
  percent: boolean;
  /** Preceded by 第 (第三): a position, not a quantity. */
  ordinal: boolean;
}

const DIGIT: Record<string, number> = {
  零: 0,
  〇: 0,
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
};
const SMALL_UNIT: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const RUN = /[零〇一二两三四五六七八九十百千万亿]+(?:点[零〇一二三四五六七八九]+)?/g;
/** What follows a count: 个 项 种 组 … (and units of money, age, time). */
const MEASURE_WORDS = new Set([...'个项种组类名位人次条行列倍岁天周月年家所篇份部张例只台元块成层轮折']);
/** Words that contain numerals but are not numbers. */
const WORDS = [
  '十分',
  '万一',
  '千万',
  '一些',
  '一致',
  '一般',
  '一起',
  '一定',
  '一旦',
  '一下',
  '一直',
  '一样',
];

/** The value of a numeral run such as 一万二千三百 or 四十二点六五; undefined when it is not one. */
export function chineseValue(run: string): { value: number; decimals: number } | undefined {
  const [whole = '', fraction] = run.split('点');
  const hasUnit = /[十百千万亿]/.test(whole);
  let value: number;
  if (!hasUnit) {
    // Digit by digit, like 二〇二四.
    if (whole === '') return undefined;
    value = Number([...whole].map((c) => DIGIT[c]).join(''));
  } else {
    let total = 0;
    let section = 0;
    let digit = 0;
    for (const c of whole) {
      if (c in DIGIT) digit = DIGIT[c]!;
      else if (c in SMALL_UNIT) {
        section += (digit || 1) * SMALL_UNIT[c]!;
        digit = 0;
      } else if (c === '万') {
        total += (section + digit || 1) * 1e4;
        section = 0;
        digit = 0;
      } else if (c === '亿') {
        total = (total + section + digit || 1) * 1e8;
        section = 0;
        digit = 0;
      }
    }
    value = total + section + digit;
  }
  if (!Number.isFinite(value)) return undefined;
  if (fraction) {
    const digits = [...fraction].map((c) => DIGIT[c]).join('');
    return { value: Number(`${value}.${digits}`), decimals: digits.length };
  }
  return { value, decimals: 0 };
}

/** The Chinese numerals of `text` that are quantities. */
export function scanChineseNumbers(text: string): ChineseNumberToken[] {
  const tokens: ChineseNumberToken[] = [];
  RUN.lastIndex = 0;
  for (let match = RUN.exec(text); match; match = RUN.exec(text)) {
    const run = match[0];
    const start = match.index;
    const end = start + run.length;
    const before = text.slice(Math.max(0, start - 3), start);
    const after = text[end] ?? '';
    if (WORDS.some((word) => text.startsWith(word, start) || text.slice(start - 1, end + 1).includes(word)))
      continue;
    // 三分之一: a fraction, read as one number.
    if (after === '分' && text[end + 1] === '之') {
      const denominator = chineseValue(run);
      const numeratorMatch = /^[零〇一二两三四五六七八九十百千]+/.exec(text.slice(end + 2));
      const numerator = numeratorMatch ? chineseValue(numeratorMatch[0]) : undefined;
      if (denominator && numerator && denominator.value > 0 && run !== '百') {
        tokens.push({
          start,
          end: end + 2 + numeratorMatch![0].length,
          value: numerator.value / denominator.value,
          decimals: 3,
          percent: false,
          ordinal: false,
        });
        RUN.lastIndex = end + 2 + numeratorMatch![0].length;
      }
      continue;
    }
    const percent = before.endsWith('百分之');
    const large = /[十百千万亿]/.test(run) && run.length >= 2;
    const counted = MEASURE_WORDS.has(after) && run !== '一';
    if (!percent && !large && !counted) continue;
    const parsed = chineseValue(run);
    if (!parsed) continue;
    tokens.push({
      start: percent ? start - 3 : start,
      end,
      value: parsed.value,
      decimals: parsed.decimals,
      percent,
      ordinal: before.endsWith('第'),
    });
  }
  return tokens;
}
