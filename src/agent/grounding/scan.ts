/**
 * The one tokenizer for Arabic-digit numbers, shared by answers and outputs so that both
 * sides read `1,382`, `-0.991`, `4.936e+01` and `42.65%` the same way.
 */

/** A number as written. */
export interface NumberToken {
  /** Offsets of the whole token (sign, digits, exponent, percent sign) in the text. */
  start: number;
  end: number;
  /** Signed value as written (a percent stays in percent: `42.65%` → 42.65). */
  value: number;
  /** Digits after the decimal point as shown (`0.8000` → 4); negative for an exponent (`1.2e5` → -4). */
  decimals: number;
  /** Significant digits shown (`0.0450` → 3, `2000` → 1 trailing zeros aside, `1,382` → 4). */
  significant: number;
  /** Zeros at the end of an integer without decimals (`2,000` → 3): how coarse it may be. */
  trailingZeros: number;
  percent: boolean;
  /** Written with thousands separators. */
  grouped: boolean;
  /** Written with an exponent (`1.2e-5`, `1.2×10⁻⁵`). */
  scientific: boolean;
}

// A digit run not glued to a word before it (`r12`, `x_2`, `H2O` are names, not numbers), or
// a decimal written without its leading zero (`p < .05`, `r = .45`).
const DIGITS = /(?<![A-Za-z_\d.])(?:(\d{1,3}(?:,\d{3})+(?!\d|,\d)|\d+)(\.\d+)?|(\.\d+))/g;
// Sticky: tried at the end of a digit run, without copying the text after it.
const EXPONENT = /[eE]([-+]?\d{1,3})(?![\w])/y;
const POWER_OF_TEN = /\s?[×xX*]\s?10(?:\^\(?([-+−]?\d{1,3})\)?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))/y;
const SUPERSCRIPTS: Record<string, string> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁻': '-',
  '⁺': '+',
};
/** Characters after which a `-` is a minus sign rather than a hyphen or a range dash. */
const BEFORE_MINUS = /[\s([{=:,;|<>≈~（：，、"'`*_]/;

/** Every number in `text`, in order. */
export function scanNumbers(text: string): NumberToken[] {
  const tokens: NumberToken[] = [];
  DIGITS.lastIndex = 0;
  for (let match = DIGITS.exec(text); match; match = DIGITS.exec(text)) {
    const whole = match[0];
    const bare = match[3];
    const integer = bare ? '0' : (match[1] ?? '');
    const fraction = bare ?? match[2] ?? '';
    let start = match.index;
    let end = start + whole.length;
    const digits = integer.replace(/,/g, '');
    let value = Number(`${digits}${fraction}`);
    let decimals = fraction ? fraction.length - 1 : 0;
    let scientific = false;

    const next = text.charCodeAt(end);
    let exponent: RegExpExecArray | null = null;
    let power: RegExpExecArray | null = null;
    // Only `e`, `E`, a space, `×`, `x`, `X` or `*` can start an exponent.
    if (next === 101 || next === 69) {
      EXPONENT.lastIndex = end;
      exponent = EXPONENT.exec(text);
    } else if (next === 32 || next === 0xd7 || next === 120 || next === 88 || next === 42) {
      POWER_OF_TEN.lastIndex = end;
      power = POWER_OF_TEN.exec(text);
    }
    if (exponent || power) {
      const raw = exponent
        ? exponent[1]!
        : (power![1] ?? [...power![2]!].map((c) => SUPERSCRIPTS[c] ?? c).join('')).replace('−', '-');
      const e = Number(raw);
      if (Number.isFinite(e)) {
        value *= 10 ** e;
        decimals -= e;
        scientific = true;
        end += (exponent ?? power)![0].length;
      }
    }

    const sign = text[start - 1];
    if ((sign === '-' || sign === '−') && (start - 1 === 0 || BEFORE_MINUS.test(text[start - 2] ?? ' '))) {
      start -= 1;
      value = -value;
    }
    let percent = false;
    if (text[end] === '%' || text[end] === '％') {
      percent = true;
      end += 1;
    }
    const significantDigits = significantOf(digits, fraction);
    let trailingZeros = 0;
    if (!fraction)
      while (trailingZeros < digits.length && digits[digits.length - 1 - trailingZeros] === '0')
        trailingZeros++;
    tokens.push({
      start,
      end,
      value,
      decimals,
      significant: Math.max(1, significantDigits - (fraction ? 0 : trailingZeros)),
      trailingZeros: digits === '0' ? 0 : trailingZeros,
      percent,
      grouped: integer.includes(','),
      scientific,
    });
    DIGITS.lastIndex = end;
  }
  return tokens;
}

/** Digits from the first non-zero one on (`0.0450` → 3, `2000` → 4). */
function significantOf(digits: string, fraction: string): number {
  const all = fraction ? `${digits}${fraction.slice(1)}` : digits;
  let first = 0;
  while (first < all.length && all[first] === '0') first++;
  return all.length - first;
}

/** Half a unit of the last digit shown: how far the true value may be from what is written. */
export function roundingOf(token: Pick<NumberToken, 'decimals'>): number {
  return 0.5 * 10 ** -token.decimals;
}
