import { type AnswerNumber, answerNumbers } from './answer-numbers.ts';
import { scanChineseNumbers } from './chinese.ts';
import { Deriver, type Operand } from './derive.ts';
import { scanNumbers } from './scan.ts';
import { type SourceEntry, SourceIndex } from './source-index.ts';
import type { Evidence, GroundedNumber } from './types.ts';

export interface GroundAnswerInput {
  /** The answer, in Markdown. */
  answer: string;
  /** The question (numbers copied from it are not claims the run must support). */
  question: string;
  evidence: Evidence;
}

/** Derived claims are searched among at most this many operands (see `Deriver`). */
const MAX_OPERANDS = 512;
const NEIGHBOURS_PER_LINE = 8;

/**
 * Checks every number of an answer against the run's evidence (docs/spec.md#grounding) and says, for each,
 * whether it is grounded, derived, ungrounded or not a claim at all (`ignored`). Pure and
 * fast: outputs are indexed once, each claim is a binary search, and derived claims are
 * searched among a bounded set of operands.
 */
export function groundAnswer(input: GroundAnswerInput): GroundedNumber[] {
  const numbers = answerNumbers(input.answer);
  if (numbers.length === 0) return [];
  const index = new SourceIndex(input.evidence);
  const asked = questionMagnitudes(input.question);
  const results: Array<GroundedNumber | undefined> = new Array(numbers.length);
  const operands = new OperandSet();

  // Pass 1: what appears in the evidence (as written, or as a unit change), and what is not a claim.
  numbers.forEach((number, i) => {
    const base = { text: number.text, value: number.value };
    if (number.role) {
      results[i] = { ...base, status: 'ignored', source: { reason: number.role } };
      return;
    }
    const [lo, hi] = widen(number.lo, number.hi);
    if (number.pValue && number.bound === 'below') {
      // "p < 0.01" is a claim about a p-value the run computed, not about any small number.
      const entry = index.find(0, hi, { accept: (e) => e.pValue });
      if (entry) results[i] = { ...base, status: 'grounded', source: index.describe(entry) };
      return;
    }
    let entry = index.find(lo, hi, { decimals: number.decimals });
    // `50.0%` from `0.5000` rather than from a `50%` shown less precisely than the claim.
    const converted =
      entry && !number.verbatim && entry.decimals < number.decimals
        ? unitChange(index, number, lo, hi)
        : undefined;
    if (converted && converted.entry.decimals + (number.percent ? -2 : 2) >= number.decimals)
      entry = undefined;
    if (entry) {
      operands.quoted(index, entry, number.start);
      const source = index.describe(entry);
      if (number.scale > 1 && !hasScale(entry.literal)) {
        const relation = number.bound === 'above' ? '>' : number.bound === 'below' ? '<' : '≈';
        results[i] = {
          ...base,
          status: 'derived',
          source: { ...source, formula: `${entry.literal} ${relation} ${number.text}` },
        };
      } else results[i] = { ...base, status: 'grounded', source };
      return;
    }
    if (asked.some((q) => q >= lo && q <= hi)) {
      results[i] = { ...base, status: 'ignored', source: { reason: 'question' } };
      operands.add({
        magnitude: Math.abs(number.value),
        label: number.text,
        tier: 1,
        positions: [number.start],
      });
      return;
    }
    if (number.yearLike) {
      results[i] = { ...base, status: 'ignored', source: { reason: 'year' } };
      return;
    }
    if (number.verbatim) return;
    const change = converted ?? unitChange(index, number, lo, hi);
    if (change) {
      operands.quoted(index, change.entry, number.start);
      results[i] = {
        ...base,
        status: 'derived',
        source: { ...index.describe(change.entry), formula: change.formula },
      };
    }
  });

  // Pass 2: sums, differences, ratios and percentages of what the answer quotes; pass 3: of
  // those and the claims pass 2 derived (one step of chaining: 310 / (310 + 84)).
  for (const pass of [2, 3] as const) {
    if (pass === 3) {
      const before = operands.list.length;
      numbers.forEach((number, i) => {
        if (results[i]?.status === 'derived' && results[i]?.source?.formula && !number.percent)
          operands.add({
            magnitude: Math.abs(number.value),
            label: number.text,
            tier: 3,
            positions: [number.start],
          });
      });
      if (operands.list.length === before) break;
    }
    const deriver = new Deriver(operands.list, pass === 3);
    numbers.forEach((number, i) => {
      if (results[i] || number.pValue || number.verbatim || number.value === 0) return;
      const [lo, hi] = widen(number.lo, number.hi);
      const kind = number.unit ?? (number.percent ? 'percent' : 'plain');
      const derivation = deriver.derive({ lo, hi, kind, position: number.start });
      if (!derivation) {
        const share = kind === 'percent' && pass === 2 ? shareOfTotal(index, lo, hi) : undefined;
        if (share)
          results[i] = {
            text: number.text,
            value: number.value,
            status: 'derived',
            source: { cell_id: index.cellOf(share.total), formula: share.formula },
          };
        return;
      }
      const [first] = derivation.operands;
      results[i] = {
        text: number.text,
        value: number.value,
        status: 'derived',
        source: { ...(first.cellId ? { cell_id: first.cellId } : {}), formula: derivation.formula },
      };
    });
  }
  return numbers.map(
    (number, i) =>
      results[i] ?? { text: number.text, value: number.value, status: 'ungrounded', source: null },
  );
}

/** The operands of derived claims: quoted numbers and their line neighbours, bounded. */
class OperandSet {
  readonly list: Operand[] = [];
  private readonly seen = new Map<string, Operand>();

  add(operand: Operand): void {
    const key = `${operand.tier}:${operand.magnitude}:${operand.line ?? ''}`;
    const known = this.seen.get(key);
    if (known) known.positions.push(...operand.positions);
    else if (this.list.length < MAX_OPERANDS) {
      this.seen.set(key, operand);
      this.list.push(operand);
    }
  }

  /** A number the answer quotes from `entry` (at `position`), and the numbers beside it on its line. */
  quoted(index: SourceIndex, entry: SourceEntry, position: number): void {
    const line = entry.fromRows ? undefined : `${entry.evidence}:${entry.line}`;
    const cellId = index.cellOf(entry);
    const operand = (e: SourceEntry, tier: 1 | 2): Operand => ({
      magnitude: e.magnitude,
      label: e.literal,
      tier,
      positions: [position],
      ...(line ? { line } : {}),
      cellId,
    });
    this.add(operand(entry, 1));
    for (const neighbour of index.neighbours(entry, NEIGHBOURS_PER_LINE)) this.add(operand(neighbour, 2));
  }
}

/**
 * A percent claim from a fraction (`0.4265` → 42.65%), from the rest of one (`0.3` → 70%) or
 * from a ratio's excess over 1 (`1.8382` → 84% higher), or a fraction claim from a percent.
 */
function unitChange(
  index: SourceIndex,
  number: AnswerNumber,
  lo: number,
  hi: number,
): { entry: SourceEntry; formula: string } | undefined {
  if (number.percent) {
    const entry = index.find(lo / 100, hi / 100, { accept: (e) => !e.percent && e.magnitude <= 1.5 });
    if (entry) return { entry, formula: `${entry.literal} × 100 = ${number.text}` };
    // The rest of a share: a 70% training split from test_size=0.3; or what a ratio above 1
    // adds: odds 84% higher for an odds ratio of 1.8382.
    if (hi <= 100) {
      const rest = index.find(1 - hi / 100, 1 - lo / 100, { accept: (e) => !e.percent && e.magnitude < 1 });
      if (rest) return { entry: rest, formula: `(1 − ${rest.literal}) × 100 = ${number.text}` };
    }
    const ratio = index.find(1 + lo / 100, 1 + hi / 100, { accept: (e) => !e.percent && e.decimals >= 2 });
    if (ratio) return { entry: ratio, formula: `(${ratio.literal} − 1) × 100 = ${number.text}` };
  } else if (hi <= 1.5) {
    const entry = index.find(lo * 100, hi * 100, { accept: (e) => e.percent });
    if (entry) return { entry, formula: `${entry.literal} ÷ 100 = ${number.text}` };
  }
  return undefined;
}

/**
 * A share of a printed total that the answer does not quote: `64.3%` for `386` of the `600` in
 * `Number of rows: 600`. The part must be a count printed by the same cell as the total.
 */
function shareOfTotal(
  index: SourceIndex,
  lo: number,
  hi: number,
): { total: SourceEntry; formula: string } | undefined {
  if (lo <= 0 || hi >= 100) return undefined;
  for (const total of index.totals) {
    const part = index.find((lo * total.magnitude) / 100, (hi * total.magnitude) / 100, {
      accept: (e) =>
        e !== total && e.evidence === total.evidence && !e.fromRows && e.decimals === 0 && !e.percent,
    });
    if (part)
      return {
        total,
        formula: `${part.literal} / ${total.literal} × 100 = ${Number(((100 * part.magnitude) / total.magnitude).toPrecision(6))}`,
      };
  }
  return undefined;
}

/** Room for floating-point error at the edges of a rounding interval. */
function widen(lo: number, hi: number): [number, number] {
  const epsilon = 1e-9 * Math.max(1, Math.abs(hi));
  return [Math.max(0, lo - epsilon), hi + epsilon];
}

function hasScale(literal: string): boolean {
  return /[kKMB万亿]|e[-+]?\d/.test(literal);
}

function questionMagnitudes(question: string): number[] {
  const values = scanNumbers(question).map((t) => Math.abs(t.value));
  for (const token of scanChineseNumbers(question)) values.push(token.value);
  return values;
}
