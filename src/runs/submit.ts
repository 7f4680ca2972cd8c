import type { RunLimits } from '../agent/budget.ts';
import type { RunConnections } from '../agent/connections.ts';
import type { ChatMessage, GroundingMode, LanguageModel, ModelEntry } from '../llm/model.ts';
import type { ResolvedModel } from '../llm/registry.ts';
import type { SamplingOptions } from '../llm/sampling.ts';
import type { FileRecord, MessageRecord, RunRecord, ThreadRecord } from '../store/store.ts';
import type { ThreadLocks } from '../threads/thread-locks.ts';
import type { Workspace } from '../workspace/workspace.ts';

/**
 * A request to start a run, as every front end (chat completions, the runs API, MCP's
 * `run_analysis`, `analyst run`, the evaluation harness) sends it to `RunService.submit`.
 * One options object: a new field (what a run may read, how it is billed) is one more key.
 */
export interface SubmitRun {
  /** Whose thread and files these are (the API key's owner, `local` for a process of one user). */
  owner: string;
  /** The owner's thread to run on; absent: a new thread of the owner's, made after every input is checked. */
  threadId?: string;
  /**
   * The conversation as the caller sent it; its last user message is the question. One
   * message on an existing thread continues the thread's stored conversation (a client that
   * sends only its new question); more are the whole conversation.
   */
  messages: ChatMessage[];
  /**
   * Edit or regenerate: the id of an earlier question (user message) of the thread. The model
   * is given the thread's conversation before it, then `messages`' one question — or, with no
   * messages, the same question again. Nothing stored is removed (docs/spec.md#revisions).
   */
  fromMessageId?: string;
  /** Uploaded files (the owner's) to copy into the workspace first. */
  fileIds?: readonly string[];
  /** A configured model id (default: the registry's default), or a model the caller resolved. */
  model?: string | ResolvedModel;
  /** A system prompt put before the conversation. */
  system?: string;
  /** Keep variables between cells. Default false. */
  stateful?: boolean;
  /** Instead of an analysis: run this one cell in the thread's sandbox, as a run of its own (no model is called). */
  cell?: { code: string; timeoutMs?: number };
  /** How `<File>` blocks link a workspace file of the thread. */
  fileUrl?: (threadId: string, path: string) => string;
  /** Caps of this run (rounds, tokens, time); default: the agent's. */
  limits?: Partial<RunLimits>;
  /** The client's sampling options (temperature, top_p, max_tokens, seed, …), sent with every model call. */
  sampling?: SamplingOptions;
  /** How the answer's numbers are checked (docs/spec.md#grounding). Default: the model's setting, else `check`. */
  grounding?: GroundingMode;
  /**
   * The run's database connections, resolved once the thread is known (a thread remembers its
   * connections) and before it is claimed; throws NotFoundError for one the owner may not use.
   */
  connections?: (thread: ThreadRecord) => Promise<RunConnections | undefined>;
}

/** A run `submit` started (status `running`), the thread it runs on and the model it uses. */
export interface SubmittedRun {
  run: RunRecord;
  thread: ThreadRecord;
  entry: ModelEntry;
}

/**
 * What runs need of threads: find, make, find files, the workspace and its attachments, and
 * the threads' lock, whose run slot a run holds (a thread being deleted is refused there).
 * The server's is `ThreadService`; a process of one user uses `storeThreads`.
 */
export interface RunThreads {
  /** The lock of these threads' runs, writes and deletes (one per set of threads). */
  readonly locks: ThreadLocks;
  /** The owner's thread, or NotFoundError. */
  get(owner: string, id: string): Promise<ThreadRecord>;
  /** A new thread of the owner's (LimitExceededError over the owner's limit). */
  create(owner: string): Promise<ThreadRecord>;
  /** The owner's uploaded file, or NotFoundError. */
  file(owner: string, id: string): Promise<FileRecord>;
  /** The thread's workspace (mounted, ready for the sandbox). */
  workspace(thread: ThreadRecord): Promise<Workspace>;
  /** Copies uploaded files into the thread's workspace. */
  attach(thread: ThreadRecord, files: readonly FileRecord[]): Promise<unknown>;
}

/** What `submit` needs of models: the entry a request names (or the default) and its client. */
export interface RunModels {
  resolve(id: string | undefined, options?: { client?: boolean }): ResolvedModel;
}

/** The model a request names (NotFoundError for an unknown id); none for a cell run. */
export function resolveModel(
  request: SubmitRun,
  models: RunModels | undefined,
): { entry: ModelEntry; model: LanguageModel | undefined } {
  if (typeof request.model === 'object') {
    return { entry: request.model.entry, model: request.cell ? undefined : request.model.model };
  }
  if (!models) throw new Error('this run service was given no models: pass a resolved model to submit');
  return models.resolve(request.model, { client: request.cell === undefined });
}

/** The one rule for continuing a stored conversation (see `SubmitRun.messages`). */
export function continuesStored(request: SubmitRun): boolean {
  return request.threadId !== undefined && request.messages.length === 1;
}

/** What a run is asked to do, once `submit` has checked it (or a caller that holds a reservation). */
export interface StartRun {
  thread: ThreadRecord;
  /** The conversation as the caller sent it; its last user message is the question. */
  messages: ChatMessage[];
  /** Put the thread's stored conversation before `messages` (a client that sends only its new question). */
  continueStored?: boolean;
  /**
   * The earlier question this one revises (edit, regenerate): the conversation stored before
   * it goes before `messages` (instead of the whole stored one), and the new question records it.
   */
  revises?: MessageRecord;
  /** Uploaded files to copy into the workspace first. */
  files?: FileRecord[];
  entry: ModelEntry;
  /** Absent for the offline analyst and cell runs. */
  model?: LanguageModel;
  /** A system prompt put before the conversation. */
  system?: string;
  /** Keep variables between cells. Default false. */
  stateful?: boolean;
  /** Instead of an analysis: run this one cell in the thread's sandbox, as a run of its own. */
  cell?: { code: string; timeoutMs?: number };
  /** How `<File>` blocks link a workspace file. */
  fileUrl?: (path: string) => string;
  /** Caps of this run (rounds, tokens, time); default: the agent's. */
  limits?: Partial<RunLimits>;
  /** The client's sampling options (temperature, top_p, max_tokens, seed, …), sent with every model call. */
  sampling?: SamplingOptions;
  /** How the answer's numbers are checked (docs/spec.md#grounding). Default: the model's setting, else `check`. */
  grounding?: GroundingMode;
  /** The thread's database connections, checked against the key. */
  connections?: RunConnections;
}
