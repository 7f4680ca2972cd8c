import type { ChatMessage, LanguageModel } from '../llm/model.ts';
import type { SamplingOptions } from '../llm/sampling.ts';
import type { SandboxManager, SessionRef } from '../sandbox/sandbox.ts';
import type { Budget } from './budget.ts';
import type { RunConnections } from './connections.ts';

/** Everything a protocol needs to run one analysis; built by runAnalysis. */
export interface RunContext {
  /** Absent for the offline analyst. */
  model: LanguageModel | undefined;
  modelId: string;
  sandbox: SandboxManager;
  /** The thread's session sandbox (its workspace is mounted at /workspace). */
  session: SessionRef;
  /** The conversation so far; the last user message is the question of this run. */
  messages: ChatMessage[];
  question: string;
  budget: Budget;
  /** Aborted on cancel or when the time cap passes. */
  abortSignal: AbortSignal;
  /** Tools the model may not see or call (tools protocol). */
  disallowedTools: ReadonlySet<string>;
  /** A fresh id, e.g. for cells. */
  newId: (prefix: string) => string;
  /** How a workspace file is linked in `<File>` blocks (the server passes download URLs). */
  fileUrl: (path: string) => string;
  /** The client's sampling options, sent with every model call. */
  sampling: SamplingOptions;
  /**
   * Called by a protocol right after it yielded `answer-end`: the message of a repair round
   * when one is due (grounding `repair`, numbers that appear in no output, a round left),
   * ending with `howToAnswer`; undefined when the answer is final.
   */
  repairAnswer: (howToAnswer: string) => string | undefined;
  /** Tools mode: the rows a query returned (with their rids), as evidence for grounding. */
  noteQueryRows: (cellId: string, rows: ReadonlyArray<Record<string, unknown>>) => void;
  /** The database connections of the thread (tools-mode `query` with `connection`); absent when none. */
  connections?: RunConnections;
}
