import type { Artifact, ExecResult } from '../sandbox/sandbox.ts';
import type { GroundedNumber } from './grounding/types.ts';

/**
 * The typed event stream of one analysis run (SPEC §4.4). The loop yields these; the
 * server turns them into SSE and stores every one, the CLI prints them, reports and
 * notebooks are built from them. Names are `<noun>-<action>`. Every event carries the
 * round it belongs to (0 before the first model call).
 */

/** The kinds of section in a tagged transcript (DeepAnalyze's tags). */
export type SectionTag = 'Analyze' | 'Understand' | 'Code' | 'Execute' | 'File' | 'Answer';

export type RunStatus = 'completed' | 'capped' | 'cancelled' | 'failed';

export interface TokenCount {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type AgentEvent =
  | {
      type: 'run-start';
      round: 0;
      run_id: string;
      model: string;
      protocol: string;
      question: string;
      at: string;
    }
  /** A model call begins. */
  | { type: 'round-start'; round: number }
  /**
   * What the model wrote, as it streams, in DeepAnalyze's tags (`<Analyze>…`, and in the tag
   * protocols the model's own `<Code>` sections). Cells, their output and files are never
   * written here: they are events of their own, and `record/transcript.ts` renders the tagged
   * transcript from all of them.
   */
  | { type: 'text-delta'; round: number; text: string }
  /**
   * A cell is about to run. `in_text`: the model's text already holds this cell's `<Code>`
   * section (tag protocols); otherwise the code exists only in this event (tool calls, the
   * offline analyst).
   */
  | { type: 'code-start'; round: number; cell_id: string; language: 'python' | 'sql'; in_text: boolean }
  | { type: 'code-end'; round: number; cell_id: string; language: 'python' | 'sql'; code: string }
  | { type: 'execution-start'; round: number; cell_id: string }
  | { type: 'execution-output'; round: number; cell_id: string; text: string }
  | { type: 'execution-end'; round: number; cell_id: string; result: ExecResult }
  | { type: 'artifact-created'; round: number; cell_id: string; artifact: Artifact }
  /** A cell that was not run, and why (tools mode: python_exec without usable query rows). */
  | { type: 'execution-refused'; round: number; cell_id: string; reason: string }
  /** Tools mode: the model called a tool (its result follows as execution-* events). */
  | {
      type: 'tool-call';
      round: number;
      cell_id: string;
      tool_call_id: string;
      name: string;
      arguments: string;
    }
  | {
      type: 'round-end';
      round: number;
      finish_reason: string;
      usage: TokenCount;
    }
  | { type: 'answer-end'; round: number; text: string }
  /**
   * Right after each `answer-end` (unless grounding is off): every number of that answer, and
   * whether it appears in what the run executed (SPEC §4.6).
   */
  | { type: 'answer-grounding'; round: number; numbers: GroundedNumber[] }
  /** Something the person should know that is not an error (e.g. a repaired tool call). */
  | { type: 'notice'; round: number; message: string }
  | { type: 'error'; round: number; code: string; message: string }
  | {
      type: 'run-end';
      round: number;
      status: RunStatus;
      /** Why the run ended when it did not answer: the cap reached, the error, the cancel. */
      reason?: string;
      usage: TokenCount;
      duration_ms: number;
      /** The whole tagged transcript (rendered from the events by `record/transcript.ts`), tags repaired. */
      transcript: string;
      /** The final answer text, if any. */
      answer?: string;
    };

export type AgentEventType = AgentEvent['type'];

/** Every file a run produced, in order, from its events. */
export function artifactsOf(events: Iterable<AgentEvent>): Artifact[] {
  const byPath = new Map<string, Artifact>();
  for (const event of events) {
    if (event.type === 'artifact-created') byPath.set(event.artifact.path, event.artifact);
  }
  return [...byPath.values()];
}
