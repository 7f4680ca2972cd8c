/**
 * TableBench's exact match as its authors score it (MJinXiang/Reasoning-Table,
 * evaluation/tests/eval/tablebench_eval.py), rewritten here:
 * - normalisation: lower-case and trim; if the text contains a number anywhere, the answer
 *   *is* that first number (thousands commas dropped; a whole number loses its ".0");
 *   otherwise punctuation is removed, the articles a/an/the dropped, whitespace collapsed;
 * - a match: both normalised sides parse as numbers and differ by less than 1e-6, or the
 *   normalised strings are equal; an empty answer never matches.
 * Kept as they have it: their number pattern also matches a lone comma, so any text with a
 * comma (a list answer) normalises to "" and matches any other such text. Scores here are
 * comparable with theirs because of it; summary.md says so.
 */
export function normalizeAnswer(value: string): string {
  if (!value) return '';
  const text = value.toLowerCase().trim();
  const number = /([-+]?[\d,]+\.?\d*)/.exec(text);
  if (number) {
    const digits = number[1]!.replaceAll(',', '');
    const parsed = pythonFloat(digits);
    if (parsed === undefined) return digits;
    return Number.isInteger(parsed) ? bigIntString(parsed) : pythonFloatString(parsed);
  }
  const noPunctuation = [...text].filter((c) => !PUNCTUATION.has(c)).join('');
  // Python's \b knows Unicode letters; JavaScript's does not, hence the lookarounds.
  const noArticles = noPunctuation.replace(/(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu, ' ');
  return noArticles.split(/\s+/).filter(Boolean).join(' ');
}

/** One gold answer (or any of several) against a prediction, both raw. */
export function exactMatch(gold: string | readonly string[], prediction: string): boolean {
  if (typeof gold !== 'string') return gold.some((g) => exactMatch(g, prediction));
  if (!gold || !prediction) return false;
  // The authors normalise before calling their matcher, which normalises again: twice, as they do.
  const normGold = normalizeAnswer(normalizeAnswer(gold));
  const normPred = normalizeAnswer(normalizeAnswer(prediction));
  const g = pythonFloat(normGold);
  const p = pythonFloat(normPred);
  if (g !== undefined && p !== undefined) return Math.abs(g - p) < 1e-6;
  return normGold === normPred;
}

/** Python's string.punctuation. */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/** Python's float() of a string, for the forms these answers take (digits, sign, point, inf/nan). */
function pythonFloat(text: string): number | undefined {
  const t = text.trim();
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return Number(t);
  if (/^[-+]?(inf|infinity|nan)$/i.test(t))
    return t.toLowerCase().includes('nan') ? Number.NaN : t.startsWith('-') ? -Infinity : Infinity;
  return undefined;
}

/** str(int(x)) for a whole float, exactly as Python writes it (no exponent). */
function bigIntString(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return BigInt(value).toString();
}

/** str(x) for a float, as Python writes it: shortest round-trip digits, "1e+16" style exponents. */
function pythonFloatString(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const exp = Number(exponent);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(value);
}
