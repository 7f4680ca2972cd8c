import { randomBytes } from 'node:crypto';
import type { RunLimits } from '../agent/budget.ts';
import type { AgentEvent } from '../agent/events.ts';
import { readTextFrom } from '../agent/grounding/evidence.ts';
import { questionTitle } from '../agent/prompt/instruction.ts';
import { cellProtocol } from '../agent/protocols/cell.ts';
import { runAnalysis } from '../agent/run-analysis.ts';
import { ConflictError, isAnalystError, NotFoundError } from '../errors/index.ts';
import type { ChatMessage, GroundingMode, LanguageModel, ModelEntry } from '../llm/model.ts';
import type { SamplingOptions } from '../llm/sampling.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { FileRecord, RunRecord, Store, StoredEvent, ThreadRecord } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { EventWriter } from './event-writer.ts';
import { LiveRun } from './live-run.ts';
import { Reservation } from './reservation.ts';

/** What a run is asked to do. */
export interface StartRun {
  thread: ThreadRecord;
  /** The conversation as the caller sent it; its last user message is the question. */
  messages: ChatMessage[];
  /** Put the thread's stored conversation before `messages` (a client that sends only its new question). */
  continueStored?: boolean;
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
  /** How the answer's numbers are checked (SPEC §4.6). Default: the model's setting, else `check`. */
  grounding?: GroundingMode;
}

export interface RunServiceOptions {
  store: Store;
  sandbox: SandboxManager;
  /** The thread's workspace (mounted, ready for the sandbox). */
  workspaceOf: (thread: ThreadRecord) => Promise<Workspace>;
  /** Copies uploaded files into the thread's workspace. */
  attachFiles: (thread: ThreadRecord, files: FileRecord[]) => Promise<void>;
  disallowedTools?: Set<string>;
  /** Called after a run ended and was stored (e.g. to write reports). */
  afterRun?: (thread: ThreadRecord) => Promise<void>;
  onError?: (error: unknown) => void;
}

/**
 * Runs are tasks of the service, not of a connection (SPEC §5, §6). `start` stores the
 * question and the run record and returns at once; the run then advances, persists every
 * event and finishes whether or not anyone listens. Anyone may `subscribe` from any event
 * sequence number — stored events first, then live ones, with no gap and no duplicate —
 * and `cancel` is a call. Every front end (HTTP, CLI, evaluation) starts runs here, so the
 * conversation, the title and the run record are stored in this one place.
 */
export class RunService {
  private readonly reserved = new Map<string, Reservation>();
  private readonly live = new Map<string, LiveRun>();
  /** Work a finished run left to do (reports), by thread; the thread's next run waits for it. */
  private readonly background = new Map<string, Promise<void>>();
  private accepting = true;

  constructor(private readonly options: RunServiceOptions) {}

  isBusy(threadId: string): boolean {
    return this.reserved.has(threadId);
  }

  get running(): number {
    return this.reserved.size;
  }

  /** The id of the thread's run in progress on this server, if any. */
  activeRunId(threadId: string): string | undefined {
    const reservation = this.reserved.get(threadId);
    return reservation?.started ? reservation.runId : undefined;
  }

  /**
   * Claims the thread for one run, synchronously (of two requests, exactly one passes):
   * ConflictError when it has a run going or the server is stopping. Pass it to `start`, or
   * `release` it if the request fails before.
   */
  reserve(threadId: string): Reservation {
    if (!this.accepting) throw new ConflictError('the server is shutting down; try again shortly');
    if (this.reserved.has(threadId)) {
      throw new ConflictError(`thread ${threadId} is already running an analysis; wait for it or cancel it`);
    }
    const reservation = new Reservation(threadId, (ended) => {
      if (this.reserved.get(threadId) === ended) this.reserved.delete(threadId);
    });
    this.reserved.set(threadId, reservation);
    return reservation;
  }

  /** Stores the question and the run, starts the run and returns its record (status `running`). */
  async start(request: StartRun, reservation: Reservation): Promise<RunRecord> {
    const { store } = this.options;
    const { thread } = request;
    let record: RunRecord;
    let workspace: Workspace;
    let conversation: ChatMessage[];
    try {
      workspace = await this.options.workspaceOf(thread);
      const files = request.files ?? [];
      if (files.length) await this.options.attachFiles(thread, files);
      const history = request.continueStored ? await this.storedConversation(thread.id) : [];
      conversation = [...history, ...request.messages];
      if (request.system?.trim()) {
        conversation = [
          { role: 'system', content: request.system },
          ...conversation.filter((m) => m.role !== 'system'),
        ];
      }
      const question = request.cell ? undefined : lastQuestion(request.messages);
      if (question !== undefined) {
        await store.addMessage({
          id: messageId(),
          thread_id: thread.id,
          role: 'user',
          content: question,
          file_ids: files.map((f) => f.id),
          run_id: reservation.runId,
        });
      }
      await store.touchThread(thread.id, question === undefined ? undefined : titleOf(question));
      record = await store.createRun({
        id: reservation.runId,
        thread_id: thread.id,
        model: request.cell ? 'none' : request.entry.id,
        protocol: request.cell ? 'cell' : request.entry.protocol,
      });
    } catch (error) {
      reservation.release();
      throw error;
    }
    reservation.started = true;
    const live = new LiveRun(record.id, thread.id, reservation.controller);
    this.live.set(record.id, live);
    void this.execute(live, request, workspace, conversation, reservation);
    return record;
  }

  /**
   * The run's events with a sequence number above `after` (default: all): stored ones,
   * then live ones as they happen, ending after `run-end`. Stops early when `abortSignal`
   * aborts. NotFoundError for a run this store does not know.
   */
  async *subscribe(
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal } = {},
  ): AsyncGenerator<StoredEvent, void> {
    let next = (options.after ?? -1) + 1;
    const live = this.live.get(runId);
    if (!live) {
      if (!(await this.options.store.getRun(runId)))
        throw new NotFoundError(`no run ${JSON.stringify(runId)}`);
      for (const stored of await this.options.store.runEvents(runId, next - 1)) {
        if (options.abortSignal?.aborted) return;
        yield stored;
      }
      return;
    }
    for (;;) {
      while (next < live.events.length) {
        if (options.abortSignal?.aborted) return;
        yield live.events[next++]!;
      }
      if (live.done || options.abortSignal?.aborted) return;
      await live.changed(options.abortSignal);
    }
  }

  /** Stops a run (its cell is killed within a second); false when it is not running here. */
  cancel(runId: string): boolean {
    const live = this.live.get(runId);
    if (!live || live.done) return false;
    live.controller.abort();
    return true;
  }

  /** Stops the thread's running analysis; false when none runs. */
  cancelThread(threadId: string): boolean {
    const reservation = this.reserved.get(threadId);
    if (!reservation) return false;
    reservation.controller.abort();
    return true;
  }

  /** Resolves when the thread has no run and no report work going. */
  async idle(threadId: string): Promise<void> {
    await this.reserved.get(threadId)?.done;
    await this.background.get(threadId);
  }

  /** Resolves when the work finished runs left behind (reports) is done. */
  async settled(): Promise<void> {
    while (this.background.size) await Promise.all([...this.background.values()]);
  }

  /** Refuses new runs, cancels the running ones and waits (up to `timeoutMs`) for them to end. */
  async shutdown(timeoutMs = 10_000): Promise<void> {
    this.accepting = false;
    const runs = [...this.reserved.values()];
    for (const run of runs) run.controller.abort();
    const ended = Promise.all(runs.map((r) => r.done)).then(() => this.settled());
    await Promise.race([ended, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  private async execute(
    live: LiveRun,
    request: StartRun,
    workspace: Workspace,
    conversation: ChatMessage[],
    reservation: Reservation,
  ): Promise<void> {
    const { store } = this.options;
    const { thread } = request;
    const writer = new EventWriter(store, live.id);
    let ended = false;
    const emit = async (event: AgentEvent) => {
      writer.add(live.push(event));
      if (event.type !== 'run-end') return;
      ended = true;
      await writer.flush();
      await store.finishRun(live.id, {
        status: event.status,
        reason: event.reason ?? null,
        usage: event.usage,
        answer: event.answer ?? null,
      });
      if (!request.cell) {
        await store.addMessage({
          id: messageId(),
          thread_id: thread.id,
          role: 'assistant',
          content: event.transcript,
          file_ids: [],
          run_id: live.id,
        });
      }
      await store.touchThread(thread.id);
    };
    try {
      // The previous run's reports are written first, so this run's cells do not see them appear.
      await this.background.get(thread.id);
      const events = runAnalysis({
        model: request.model,
        protocol: request.cell ? cellProtocol(request.cell.code, request.cell) : request.entry.protocol,
        messages: conversation,
        sandbox: this.options.sandbox,
        session: { id: thread.id, workspace, stateful: request.stateful ?? false },
        abortSignal: live.controller.signal,
        disallowedTools: this.options.disallowedTools,
        fileUrl: request.fileUrl,
        limits: request.limits,
        runId: live.id,
        sampling: request.sampling,
        grounding: request.grounding ?? request.entry.grounding,
        readTextFile: readTextFrom(workspace),
      });
      for await (const event of events) await emit(event);
    } catch (error) {
      this.options.onError?.(error);
      if (!ended) await this.failed(live, error, emit).catch((e) => this.options.onError?.(e));
    } finally {
      await writer.flush().catch((e) => this.options.onError?.(e));
      reservation.end();
      live.finish();
      this.live.delete(live.id);
      this.afterRun(thread);
    }
  }

  /** A run that broke outside the agent loop (store failure, bad options) still ends with run-end. */
  private async failed(
    live: LiveRun,
    error: unknown,
    emit: (event: AgentEvent) => Promise<void>,
  ): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    const round = live.events.reduce((max, e) => Math.max(max, e.event.round), 0);
    await emit({
      type: 'error',
      round,
      code: isAnalystError(error) ? error.code : 'internal_error',
      message,
    });
    await emit({
      type: 'run-end',
      round,
      status: live.controller.signal.aborted ? 'cancelled' : 'failed',
      reason: message,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      duration_ms: 0,
      transcript: '',
    });
  }

  /** Reports are written after the client has its answer; the thread's next run and shutdown wait. */
  private afterRun(thread: ThreadRecord): void {
    const { afterRun, onError } = this.options;
    if (!afterRun) return;
    const task: Promise<void> = afterRun(thread)
      .catch((e) => onError?.(e))
      .finally(() => {
        if (this.background.get(thread.id) === task) this.background.delete(thread.id);
      });
    this.background.set(thread.id, task);
  }

  private async storedConversation(threadId: string): Promise<ChatMessage[]> {
    const messages = await this.options.store.listMessages(threadId);
    return messages.map((m) => ({ role: m.role, content: m.content }));
  }
}

function messageId(): string {
  return `msg-${randomBytes(12).toString('hex')}`;
}

function lastQuestion(messages: ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return message.content ?? '';
  }
  return undefined;
}

/**
 * A thread's title from its first question: the first line, cut near 80 characters; for a
 * prompt in DeepAnalyze's format, its instruction's first line (not `# Instruction`).
 */
export function titleOf(question: string): string {
  return questionTitle(question);
}
