import { lowerBound } from './source-index.ts';

/**
 * A number a derived claim may be computed from:
 * - tier 1: a number the answer itself quotes from an output (its exact source value), or one
 *   from the question;
 * - tier 2: another number on the same output line as a tier-1 one (a table row);
 * - tier 3: a claim of the answer that is itself derived (`394` = 310 + 84, then 310 / 394).
 */
export interface Operand {
  magnitude: number;
  /** As written where it was found. */
  label: string;
  tier: 1 | 2 | 3;
  /** Where in the answer the claims that brought it are (offsets), for preferring nearby operands. */
  positions: number[];
  /** The output line it is on, `evidence:line` (tier 1 and 2 from outputs). */
  line?: string;
  cellId?: string;
}

export interface Derivation {
  formula: string;
  operands: [Operand, Operand];
}

/** What a claim allows: |true value| ∈ [lo, hi]. */
export interface DerivationTarget {
  lo: number;
  hi: number;
  /** `percent`: a share or change in percent; `points`: percentage points; `times`: a ratio. */
  kind: 'plain' | 'percent' | 'points' | 'times';
  /** Where the claim is in the answer. */
  position: number;
}

/** Matches examined per claim at most: the search stays bounded however many operands match. */
const MAX_MATCHES = 512;

/**
 * Whether a claim is a sum, difference, ratio, percentage, percent change or percentage-point
 * difference of two operands, within its rounding. For each first operand, the second one that
 * would make the claim true lies in an interval found by binary search, so a claim costs
 * O(operands × log operands). Pairs are limited to what an analyst plausibly combines (two
 * quoted numbers, a quoted number and one beside it on its output line, a derived claim and a
 * quoted number), and of the pairs that fit, the one nearest the claim in the answer is shown.
 */
export class Deriver {
  private readonly operands: Operand[];
  private readonly magnitudes: Float64Array;

  constructor(operands: Operand[]) {
    this.operands = operands.filter((o) => o.magnitude > 0).sort((a, b) => a.magnitude - b.magnitude);
    this.magnitudes = Float64Array.from(this.operands, (o) => o.magnitude);
  }

  derive(target: DerivationTarget): Derivation | undefined {
    const { lo, hi } = target;
    if (hi <= 0 || this.operands.length < 2) return undefined;
    let best: { op: number; a: Operand; b: Operand; score: number } | undefined;
    let examined = 0;
    const ops = OPS[target.kind];
    ops.forEach((op, opIndex) => {
      for (let i = 0; i < this.operands.length && examined < MAX_MATCHES; i++) {
        const a = this.operands[i]!;
        for (const [from, to] of op.second(a.magnitude, lo, hi)) {
          if (!(to >= from) || to <= 0) continue;
          for (let j = lowerBound(this.magnitudes, from); j < this.operands.length; j++) {
            if (this.magnitudes[j]! > to || examined >= MAX_MATCHES) break;
            const b = this.operands[j]!;
            if (j === i || !plausiblePair(a, b)) continue;
            examined += 1;
            // Quoted operands first, then the ones nearest the claim, then the likelier operation.
            const distance = nearest(a, target.position) + nearest(b, target.position);
            const score = (a.tier + b.tier) * 1e9 + distance * 8 + opIndex;
            if (!best || score < best.score) best = { op: opIndex, a, b, score };
          }
        }
      }
    });
    if (!best) return undefined;
    return { formula: ops[best.op]!.formula(best.a, best.b), operands: [best.a, best.b] };
  }
}

function nearest(operand: Operand, position: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (const at of operand.positions) best = Math.min(best, Math.abs(at - position));
  return best;
}

function plausiblePair(a: Operand, b: Operand): boolean {
  if (a.tier === 1 && b.tier === 1) return true;
  if (a.tier === 3 || b.tier === 3) return a.tier === 1 || b.tier === 1;
  return a.line !== undefined && a.line === b.line && (a.tier === 1 || b.tier === 1);
}

interface Op {
  /** The intervals where the second operand must lie for op(a, b) to be in [lo, hi]. */
  second(a: number, lo: number, hi: number): Array<[number, number]>;
  formula(a: Operand, b: Operand): string;
}

const show = (x: number): string => String(Number(x.toPrecision(6)));

const sum: Op = {
  second: (a, lo, hi) => [[lo - a, hi - a]],
  formula: (a, b) => `${a.label} + ${b.label} = ${show(a.magnitude + b.magnitude)}`,
};
const difference: Op = {
  second: (a, lo, hi) => [[a - hi, a - lo]],
  formula: (a, b) => `${a.label} − ${b.label} = ${show(a.magnitude - b.magnitude)}`,
};
const ratio: Op = {
  second: (a, lo, hi) => [[a / hi, lo > 0 ? a / lo : Number.POSITIVE_INFINITY]],
  formula: (a, b) => `${a.label} / ${b.label} = ${show(a.magnitude / b.magnitude)}`,
};
const percentage: Op = {
  second: (a, lo, hi) => (lo > 0 ? [[(100 * a) / hi, (100 * a) / lo]] : []),
  formula: (a, b) => `${a.label} / ${b.label} × 100 = ${show((100 * a.magnitude) / b.magnitude)}`,
};
const percentChange: Op = {
  second: (a, lo, hi) => {
    const up: [number, number] = [a / (1 + hi / 100), a / (1 + lo / 100)];
    // A fall: b > a and (b − a) / b ∈ [lo, hi] %.
    if (lo >= 100) return [up];
    return [up, [a / (1 - lo / 100), hi < 100 ? a / (1 - hi / 100) : Number.POSITIVE_INFINITY]];
  },
  formula: (a, b) =>
    `(${a.label} − ${b.label}) / ${b.label} × 100 = ${show((100 * (a.magnitude - b.magnitude)) / b.magnitude)}`,
};
const pointDifference: Op = {
  second: (a, lo, hi) => [[a - hi / 100, a - lo / 100]],
  formula: (a, b) => `(${a.label} − ${b.label}) × 100 = ${show(100 * (a.magnitude - b.magnitude))}`,
};

/** The operations each kind of claim may be, most likely first. */
const OPS: Record<DerivationTarget['kind'], Op[]> = {
  plain: [difference, sum, ratio],
  times: [ratio],
  points: [pointDifference, difference],
  percent: [percentChange, percentage, pointDifference, difference, sum],
};
