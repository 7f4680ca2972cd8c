import type { ChatMessage, LanguageModel } from '../llm/model.ts';
import type { SandboxManager, SessionRef } from '../sandbox/sandbox.ts';
import type { Budget } from './budget.ts';

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
}
