/**
 * What grounding says about the numbers of an answer (docs/spec.md#grounding). Types only: the
 * `answer-grounding` event carries `GroundedNumber`s, and every front end reads them.
 */

/**
 * - `grounded`: the number appears in what the run executed or read (up to the rounding shown);
 * - `derived`: a sum, difference, ratio, percentage, percent change or unit change of such
 *   numbers, within the rounding shown;
 * - `ungrounded`: neither: nothing the run did produced it;
 * - `ignored`: not a claim to check (a year, a list ordinal, a number copied from the question…).
 */
export type GroundingStatus = 'grounded' | 'derived' | 'ungrounded' | 'ignored';

/** Why a number was not checked. */
export type IgnoredReason = 'year' | 'date' | 'ordinal' | 'question' | 'convention' | 'code';

/** Where a number was found, how it was derived, or why it was ignored (for a hover in a UI). */
export interface GroundingSource {
  /** The cell whose output, code or file holds it (for `derived`: the cell of the first operand). */
  cell_id?: string;
  /** The line it was found on, cut to about 100 characters. */
  excerpt?: string;
  /** A file the run wrote (and grounding read back), workspace-relative. */
  file?: string;
  /** Tools mode: the query row it came from. */
  rid?: string;
  /** Where in the cell: its output (default), its code, or an earlier turn's output. */
  in?: 'output' | 'code' | 'file' | 'row' | 'conversation';
  /** `derived`: how, e.g. `(0.8610 − 0.8332) / 0.8332 × 100 = 3.34`. */
  formula?: string;
  /** `ignored`: why. */
  reason?: IgnoredReason;
}

/** One number of an answer and what grounding found. */
export interface GroundedNumber {
  /** As written in the answer, e.g. `42.65%`, `1,382`, `<0.01`, `1.5亿`. */
  text: string;
  /** Its value with any scale applied (`1.5亿` → 150000000); percentages in percent (`42.65%` → 42.65). */
  value: number;
  status: GroundingStatus;
  /** Null for `ungrounded`. */
  source: GroundingSource | null;
}

/** Text the run produced or read: a cell's output or code, a file it wrote, an earlier turn's output. */
export interface EvidenceText {
  cellId: string;
  kind: 'output' | 'code' | 'file' | 'conversation';
  text: string;
  /** For `file`: its workspace-relative path. */
  file?: string;
}

/** Tools mode: the rows of one `query` call, each with its citation id `rid`. */
export interface EvidenceRows {
  cellId: string;
  rows: ReadonlyArray<Record<string, unknown>>;
}

/** Everything an answer's numbers are checked against. */
export interface Evidence {
  texts: EvidenceText[];
  rows: EvidenceRows[];
}
