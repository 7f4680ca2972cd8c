import type { TableInfo } from './schema.ts';

/**
 * What the offline analyst decided to compute for a question: the output of
 * `understand/`, the input of `cells/` and `answer/`. Columns are named exactly as the
 * data has them.
 */

/** A row filter. Text is compared exactly as the data writes it (the value came from the data). */
export type Condition =
  | { kind: 'equals'; column: string; value: string | number }
  | { kind: 'contains'; column: string; value: string }
  /** Any of several values ("the 'healthcare' and 'education' industries"). */
  | { kind: 'in'; column: string; values: string[] }
  /** The rows from the one with `from` to the one with `to`, in table order ("from May 1944 to August 1944"). */
  | { kind: 'span'; column: string; from: string; to: string }
  | { kind: 'compare'; column: string; op: '>' | '>=' | '<' | '<='; value: number }
  | { kind: 'between'; column: string; low: number; high: number }
  /** A date column's year. */
  | { kind: 'year'; column: string; value: number };

/** What is measured on each row: a column, or two combined ("wins divided by races"). */
export type Measure =
  | { kind: 'column'; column: string }
  /** How many rows (of a group): "which trainer has the most winners". */
  | { kind: 'rows' }
  | {
      kind: 'combine';
      op: '/' | '-' | '+' | '*';
      columns: string[];
      percent?: boolean;
      /** The size of a difference, whatever its sign. */
      absolute?: boolean;
      label: string;
    };

export type Aggregate = 'mean' | 'sum' | 'median' | 'max' | 'min' | 'count';

/** Rows kept before aggregating: the first `n` by a measure (or in table order). */
export interface Subset {
  n: number;
  by?: Measure;
  order: 'desc' | 'asc';
}

/** Why a column was chosen, in words, for the answer's "assumed" section. */
export interface Assumption {
  role: string;
  column: string;
  because: string;
}

interface PlanBase {
  table: TableInfo;
  filters: Condition[];
  assumptions: Assumption[];
}

export type Plan =
  | (PlanBase & {
      kind: 'aggregate';
      measure: Measure;
      aggregate: Aggregate;
      subset?: Subset;
      entity?: string;
      /** Aggregate the totals per value of this column ("average films per year"), not the rows. */
      per?: string;
    })
  | (PlanBase & { kind: 'count'; entity?: string })
  | (PlanBase & { kind: 'lookup'; targets: string[]; entity?: string })
  | (PlanBase & {
      kind: 'rank';
      entity: string;
      measure: Measure;
      order: 'desc' | 'asc';
      n: number;
      /** Also the difference to the other end ("…and how does it compare to the lowest?"). */
      versus?: 'other-end' | 'average';
      /** The whole order, not only the first n. */
      full?: boolean;
      /** How rows of the same entity combine. Default sum. */
      perEntity?: 'sum' | 'mean';
    })
  | (PlanBase & { kind: 'spread'; measure: Measure; entity?: string })
  | (PlanBase & {
      kind: 'compare-values';
      column: string;
      values: [string, string];
      measure: Measure;
      ask: 'which-higher' | 'which-lower' | 'difference' | 'ratio';
    })
  | (PlanBase & {
      kind: 'compare-groups';
      group: string;
      outcome: Measure;
      aggregate: Aggregate;
      /** Other categorical columns to check the comparison within (Simpson's paradox). */
      strata: string[];
    })
  | (PlanBase & {
      kind: 'trend';
      time: string;
      measure: Measure;
      aggregate: Aggregate;
      timeIsDate: boolean;
      /** Periods of a date column the question asks for ("yearly", "per month"). */
      period?: 'Y' | 'M';
    })
  | (PlanBase & {
      kind: 'change';
      time: string;
      measure: Measure;
      /** `step`: the largest change from one period to the next; `between`: from one period to another. */
      mode: 'step' | 'between' | 'average-step';
      direction: 'increase' | 'decrease' | 'any';
      relative: boolean;
      /** What the answer is: the period of the change, or its size. */
      ask: 'when' | 'value';
      /** How rows of one period combine: summed (amounts) or averaged (prices, rates). */
      perPeriod: 'sum' | 'mean';
      /** Periods of a date column the question asks for. */
      period?: 'Y' | 'M';
      from?: number;
      to?: number;
    })
  | (PlanBase & { kind: 'correlation'; columns: string[] })
  | (PlanBase & { kind: 'distribution'; column: string })
  | (PlanBase & { kind: 'missing' })
  | (PlanBase & { kind: 'duplicates' })
  | (PlanBase & { kind: 'outliers'; column?: string })
  | {
      kind: 'profile';
      /** `no-table`, `overview` (asked for), `not-understood` (no calculation fits the question). */
      reason: string;
      tables: TableInfo[];
      /** For `not-understood`: what the question was read as, said before the profile. */
      heard?: Heard;
    };

/**
 * What the analyst recognised in a question it could not map to a calculation, so the answer
 * can say it in a sentence ("I recognised the column “salesAmount” and the words “predict”…")
 * instead of answering a different question.
 */
export interface Heard {
  /** Columns named, in the order the question names them. */
  columns: string[];
  /** Values named, with their column. */
  values: Array<{ column: string; value: string }>;
  /** Words that say what to compute ("average", "趋势"), as the question writes them. */
  words: string[];
}

export type PlanKind = Plan['kind'];

/** A name for a measure in prose. */
export function measureLabel(measure: Measure): string {
  if (measure.kind === 'rows') return 'rows';
  return measure.kind === 'column' ? measure.column : measure.label;
}

/** The columns a measure reads. */
export function measureColumns(measure: Measure): string[] {
  if (measure.kind === 'rows') return [];
  return measure.kind === 'column' ? [measure.column] : measure.columns;
}
