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
  /** Where in the answer the claims that brought it are (offsets); empty for the question's numbers. */
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

/** Pairs looked at per claim at most: the search stays bounded however wide a claim's interval is. */
const MAX_PAIRS = 1024;
/**
 * Operands must have been quoted within this many characters of the claim: analysts derive a
 * figure from numbers they cite beside it (the same sentence, table or list), and every pair
 * of numbers quoted anywhere would make almost any claim derivable.
 */
const WINDOW_CHARS = 400;
/** Of those, the nearest this many. */
const MAX_NEAR = 48;

/**
 * Whether a claim is a sum, difference, ratio, percentage, percent change or percentage-point
 * difference of two operands, within its rounding. For each first operand, the second one that
 * would make the claim true lies in an interval found by binary search, so a claim costs
 * O(operands × log operands). Pairs are limited to what an analyst plausibly combines: two
 * numbers quoted near the claim, a quoted number and one beside it on its output line, a
 * derived claim and a quoted number; of the pairs that fit, the one nearest the claim is shown.
 */
export class Deriver {
  private readonly operands: Operand[];
  /** Every position an operand was quoted at, sorted: the operands near a claim are a range of it. */
  private readonly quotes: Array<{ position: number; operand: number }> = [];
  /** Operands from the question: near every claim. */
  private readonly everywhere: number[] = [];
  private readonly distance: Float64Array;
  private readonly stamp: Int32Array;
  private calls = 0;
  private readonly intervals = new Float64Array(4);

  /** `onlyWithTier3`: consider only pairs with a tier-3 operand (the chaining pass). */
  constructor(
    operands: Operand[],
    private readonly onlyWithTier3 = false,
  ) {
    this.operands = operands.filter((o) => o.magnitude > 0);
    this.operands.forEach((operand, index) => {
      if (operand.positions.length === 0) this.everywhere.push(index);
      for (const position of operand.positions) this.quotes.push({ position, operand: index });
    });
    this.quotes.sort((a, b) => a.position - b.position);
    this.distance = new Float64Array(this.operands.length);
    this.stamp = new Int32Array(this.operands.length);
  }

  derive(target: DerivationTarget): Derivation | undefined {
    const { lo, hi } = target;
    if (hi <= 0) return undefined;
    const near = this.near(target.position);
    if (near.length < 2) return undefined;
    const magnitudes = Float64Array.from(near, (i) => this.operands[i]!.magnitude);
    let best: { op: number; a: number; b: number; score: number } | undefined;
    let visited = 0;
    const ops = OPS[target.kind];
    const out = this.intervals;
    for (let opIndex = 0; opIndex < ops.length && visited < MAX_PAIRS; opIndex++) {
      const op = ops[opIndex]!;
      for (let x = 0; x < near.length && visited < MAX_PAIRS; x++) {
        const i = near[x]!;
        const a = this.operands[i]!;
        const intervals = op.second(a.magnitude, lo, hi, out);
        for (let k = 0; k < intervals; k++) {
          const from = out[2 * k]!;
          const to = out[2 * k + 1]!;
          if (!(to >= from) || to <= 0) continue;
          for (let y = lowerBound(magnitudes, from); y < near.length; y++) {
            if (magnitudes[y]! > to || ++visited > MAX_PAIRS) break;
            const j = near[y]!;
            if (j === i) continue;
            const b = this.operands[j]!;
            if (!this.plausible(a, b)) continue;
            // Quoted operands first, then the ones nearest the claim, then the likelier operation.
            const score = (a.tier + b.tier) * 1e9 + (this.distance[i]! + this.distance[j]!) * 8 + opIndex;
            if (!best || score < best.score) best = { op: opIndex, a: i, b: j, score };
          }
        }
      }
    }
    if (!best) return undefined;
    const a = this.operands[best.a]!;
    const b = this.operands[best.b]!;
    return { formula: ops[best.op]!.formula(a, b), operands: [a, b] };
  }

  /** The operands quoted within the window of `position`, by magnitude, with their distances set. */
  private near(position: number): number[] {
    const call = ++this.calls;
    const found: number[] = [];
    const take = (operand: number, distance: number) => {
      if (this.stamp[operand] !== call) {
        this.stamp[operand] = call;
        this.distance[operand] = distance;
        found.push(operand);
      } else if (distance < this.distance[operand]!) this.distance[operand] = distance;
    };
    for (const operand of this.everywhere) take(operand, 0);
    let lo = 0;
    let hi = this.quotes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.quotes[mid]!.position < position - WINDOW_CHARS) lo = mid + 1;
      else hi = mid;
    }
    for (let q = lo; q < this.quotes.length; q++) {
      const quote = this.quotes[q]!;
      if (quote.position > position + WINDOW_CHARS) break;
      take(quote.operand, Math.abs(quote.position - position));
    }
    // The nearest ones only: a claim is derived from what is quoted beside it.
    if (found.length > MAX_NEAR) {
      found.sort((x, y) => this.distance[x]! - this.distance[y]!);
      found.length = MAX_NEAR;
    }
    if (this.onlyWithTier3 && !found.some((i) => this.operands[i]!.tier === 3)) return [];
    return found.sort((x, y) => this.operands[x]!.magnitude - this.operands[y]!.magnitude);
  }

  private plausible(a: Operand, b: Operand): boolean {
    if (a.tier === 3 || b.tier === 3) return a.tier === 1 || b.tier === 1;
    if (this.onlyWithTier3) return false;
    if (a.tier === 1 && b.tier === 1) return true;
    return a.line !== undefined && a.line === b.line && (a.tier === 1 || b.tier === 1);
  }
}

interface Op {
  /**
   * Writes into `out` the intervals ([from, to] pairs) where the second operand must lie for
   * op(a, b) to be in [lo, hi]; returns how many (no allocation: this runs for every pair).
   */
  second(a: number, lo: number, hi: number, out: Float64Array): number;
  formula(a: Operand, b: Operand): string;
}

const show = (x: number): string => String(Number(x.toPrecision(6)));

function one(out: Float64Array, from: number, to: number): number {
  out[0] = from;
  out[1] = to;
  return 1;
}

const sum: Op = {
  second: (a, lo, hi, out) => one(out, lo - a, hi - a),
  formula: (a, b) => `${a.label} + ${b.label} = ${show(a.magnitude + b.magnitude)}`,
};
const difference: Op = {
  second: (a, lo, hi, out) => one(out, a - hi, a - lo),
  formula: (a, b) => `${a.label} − ${b.label} = ${show(a.magnitude - b.magnitude)}`,
};
const ratio: Op = {
  second: (a, lo, hi, out) => one(out, a / hi, lo > 0 ? a / lo : Number.POSITIVE_INFINITY),
  formula: (a, b) => `${a.label} / ${b.label} = ${show(a.magnitude / b.magnitude)}`,
};
const percentage: Op = {
  second: (a, lo, hi, out) => (lo > 0 ? one(out, (100 * a) / hi, (100 * a) / lo) : 0),
  formula: (a, b) => `${a.label} / ${b.label} × 100 = ${show((100 * a.magnitude) / b.magnitude)}`,
};
const percentChange: Op = {
  second: (a, lo, hi, out) => {
    one(out, a / (1 + hi / 100), a / (1 + lo / 100));
    if (lo >= 100) return 1;
    // A fall: b > a and (b − a) / b ∈ [lo, hi] %.
    out[2] = a / (1 - lo / 100);
    out[3] = hi < 100 ? a / (1 - hi / 100) : Number.POSITIVE_INFINITY;
    return 2;
  },
  formula: (a, b) =>
    `(${a.label} − ${b.label}) / ${b.label} × 100 = ${show((100 * (a.magnitude - b.magnitude)) / b.magnitude)}`,
};
const pointDifference: Op = {
  second: (a, lo, hi, out) => one(out, a - hi / 100, a - lo / 100),
  formula: (a, b) => `(${a.label} − ${b.label}) × 100 = ${show(100 * (a.magnitude - b.magnitude))}`,
};

/** The operations each kind of claim may be, most likely first. */
const OPS: Record<DerivationTarget['kind'], Op[]> = {
  plain: [difference, sum, ratio],
  times: [ratio],
  points: [pointDifference, difference],
  percent: [percentChange, percentage, pointDifference, difference, sum],
};
