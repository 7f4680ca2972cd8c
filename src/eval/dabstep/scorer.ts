import { sequenceRatio } from './sequence-matcher.ts';

/**
 * DABStep's official answer scorer (adyen/DABstep, dabstep_benchmark/evaluation/scorer.py),
 * rewritten here rule for rule. Both sides are trimmed and lower-cased, then:
 * 1. either side a "formatted number" (`1,234.5` with thousands commas, or a decimal such as
 *    `0.99` / `0,99`, optionally after `$`): compare the first numbers in both, or fail;
 * 2. either side holding `,` or `;`: compare as lists (brackets dropped, split on `,`/`;`,
 *    sorted, then equal, or item by item with these same rules);
 * 3. both sides holding a number: compare the numbers;
 * 4. otherwise compare as strings: equal once everything but letters, digits and `_` is
 *    removed; or, when one side is a single word, one side's words a subset of the other's;
 *    or a difflib similarity above 0.95.
 * Numbers match when equal; when both are below 1, within 1e-4 (relative or absolute); else
 * when equal after rounding both to the fewer decimal places of the two, or within 1e-4.
 */
export function questionScorer(answer: string | null | undefined, gold: string | null | undefined): boolean {
  if (answer === null || answer === undefined || gold === null || gold === undefined) return false;
  const a = answer.trim().toLowerCase();
  const b = gold.trim().toLowerCase();
  if (isFormattedNumber(a) || isFormattedNumber(b)) {
    const x = extractNumber(a);
    const y = extractNumber(b);
    return x !== undefined && y !== undefined && compareNumbers(x, y);
  }
  if (/[;,]/.test(a) || /[;,]/.test(b)) return compareLists(a, b);
  const x = extractNumber(a);
  const y = extractNumber(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y);
  return compareStrings(a, b);
}

/** `1,000`, `12,345.67` (at least one thousands comma), or a plain decimal `0.99` / `0,99`; `$` allowed first. */
export function isFormattedNumber(value: string): boolean {
  return /^\$?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+[.,]\d+)$/.test(value.trim());
}

/** The first number in the text once commas and `$` are removed (a `%` after it is ignored). */
export function extractNumber(value: string): number | undefined {
  const match = /(\d*\.\d+|\d+\.?\d*)%?/.exec(value.replaceAll(',', '').replaceAll('$', ''));
  return match ? Number(match[1]) : undefined;
}

export function compareNumbers(x: number, y: number): boolean {
  if (x === y) return true;
  if (x < 1 && y < 1) return isClose(x, y);
  const places = Math.min(decimalPlaces(x), decimalPlaces(y));
  if (pythonRound(x, places) === pythonRound(y, places)) return true;
  return isClose(x, y);
}

function compareLists(a: string, b: string): boolean {
  const items = (text: string) =>
    text
      .trim()
      .replace(/^\[|\]$/g, '')
      .split(/[,;]/)
      .map((item) => item.trim())
      .filter(Boolean)
      .sort(pythonStringOrder);
  const left = items(a);
  const right = items(b);
  if (left.length === right.length && left.every((item, i) => item === right[i])) return true;
  if (left.length !== right.length) return false;
  return left.every((item, i) => questionScorer(item, right[i]!));
}

function compareStrings(a: string, b: string): boolean {
  const clean = (text: string) => text.replace(/[^\p{L}\p{N}_]/gu, '');
  if (clean(a) === clean(b)) return true;
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const left = words(a);
  const right = words(b);
  if ((left.length === 1 || right.length === 1) && left.length > 0 && right.length > 0) {
    const l = new Set(left);
    const r = new Set(right);
    return [...l].every((w) => r.has(w)) || [...r].every((w) => l.has(w));
  }
  return sequenceRatio(a, b) > 0.95;
}

/** math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-4). */
function isClose(x: number, y: number): boolean {
  return Math.abs(x - y) <= Math.max(1e-4 * Math.max(Math.abs(x), Math.abs(y)), 1e-4);
}

/** Digits after the point in Python's str() of the float (str(5.0) is "5.0": one place). */
function decimalPlaces(value: number): number {
  const text = pythonFloatRepr(value);
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}

/** Python's repr of a float as far as decimal places go: whole numbers keep ".0". */
function pythonFloatRepr(value: number): string {
  const text = String(value);
  if (/e/i.test(text)) return text;
  return text.includes('.') ? text : `${text}.0`;
}

/** Python's round(x, n): to nearest, exact ties to even. */
function pythonRound(value: number, places: number): number {
  const factor = 10 ** places;
  const scaled = value * factor;
  const floor = Math.floor(scaled);
  const fraction = scaled - floor;
  const rounded = fraction === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(scaled);
  return rounded / factor;
}

/** Python sorts strings by code point; JavaScript's default sort by UTF-16 unit differs only beyond the BMP. */
function pythonStringOrder(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
