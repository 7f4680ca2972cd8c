/**
 * What grounding says about the numbers of an answer (docs/spec.md#grounding). Types only: the
 * `answer-grounding` event carries `GroundedNumber`s, and every front end reads them.
 */

export type {
  GroundedNumber,
  GroundingSource,
  GroundingStatus,
  IgnoredReason,
} from '../../contract/grounding.ts';

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
