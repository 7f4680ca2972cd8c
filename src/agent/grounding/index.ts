/** Grounding: every number of an answer checked against what the run executed (docs/spec.md#grounding). */
export { type AnswerNumber, answerNumbers } from './answer-numbers.ts';
export { EvidenceCollector, type EvidenceCollectorOptions, type ReadTextFile } from './evidence.ts';
export { type GroundAnswerInput, groundAnswer } from './ground.ts';
export { repairInstruction } from './repair.ts';
export type {
  Evidence,
  EvidenceRows,
  EvidenceText,
  GroundedNumber,
  GroundingSource,
  GroundingStatus,
  IgnoredReason,
} from './types.ts';
