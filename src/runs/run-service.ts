import { availableParallelism } from 'node:os';
import type { AgentEvent } from '../agent/events.ts';
import { readTextFrom } from '../agent/grounding/evidence.ts';
import { cellProtocol } from '../agent/protocols/cell.ts';
import { runAnalysis } from '../agent/run-analysis.ts';
import type { QuietTime } from '../background/quiet-time.ts';
import { ConflictError, isAnalystError, NotFoundError } from '../errors/index.ts';
import type { ChatMessage, LanguageModel, ModelEntry } from '../llm/model.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { FileRecord, RunRecord, Store, StoredEvent, ThreadRecord } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { AfterRunQueue } from './after-run-queue.ts';
import { lastQuestion, messageId, titleOf } from './conversation.ts';
import { EventWriter } from './event-writer.ts';
import { LiveRun } from './live-run.ts';
import { followStoredRun } from './remote-run.ts';
import { LeaseKeeper, type ReplicaOptions } from './replicas.ts';
import { Reservation } from './reservation.ts';
import {
  continuesStored,
  type RunModels,
  type RunThreads,
  type StartRun,
  type SubmitRun,
  type SubmittedRun,
} from './submit.ts';

export type { StartRun };
export { titleOf };

export interface RunServiceOptions {
  store: Store;
  sandbox: SandboxManager;
  /** Threads and files by owner, for `submit`. */
  threads?: RunThreads;
  /** Configured models, for `submit` requests that name one by id. */
  models?: RunModels;
  /** The thread's workspace (mounted, ready for the sandbox). */
  workspaceOf: (thread: ThreadRecord) => Promise<Workspace>;
  /** Copies uploaded files into the thread's workspace. */
  attachFiles: (thread: ThreadRecord, files: FileRecord[]) => Promise<void>;
  disallowedTools?: Set<string>;
  /** Called after a run ended and was stored (e.g. to write reports). */
  afterRun?: (thread: ThreadRecord) => Promise<void>;
  /** How many `afterRun` tasks run at once (the rest wait their turn). Default: one per core. */
  afterRunsAtOnce?: number;
  onError?: (error: unknown) => void;
  /** Told when runs begin and end, so work done ahead of demand waits for quiet (issue 32). */
  quiet?: QuietTime;
  /** How many runs an owner may have going at once (counted by the store); undefined: no limit. */
  maxRunsPerOwner?: (owner: string) => number | undefined;
  /**
   * Checked before a run is claimed (e.g. per-key limits: throw to refuse); what it returns
   * is called when the run ends.
   */
  admit?: (thread: ThreadRecord) => Promise<(() => void) | undefined>;
  /** The sandbox a thread's run uses; default `sandbox`. */
  sandboxFor?: (thread: ThreadRecord) => SandboxManager;
  /**
   * Set when several replicas share the store (see docs/scale-out.md): runs then hold a
   * lease, other replicas' runs are followed through the store and cancelled through it.
   */
  replicas?: ReplicaOptions;
  /** Runs of replicas that died were marked interrupted (e.g. to reap their sandboxes). */
  onInterrupted?: (runIds: string[]) => void;
}

const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * Runs are tasks of the service, not of a connection (docs/spec.md#http-api, docs/spec.md#persistence). `start` stores the
 * question and the run record and returns at once; the run then advances, persists every
 * event and finishes whether or not anyone listens. Anyone may `subscribe` from any event
 * sequence number — stored events first, then live ones, with no gap and no duplicate —
 * and `cancel` is a call. Every front end (HTTP, CLI, evaluation) starts runs here, so the
 * conversation, the title and the run record are stored in this one place.
 *
 * One run per thread: claimed in memory first (synchronously, the fast path of one server),
 * then by the store, which refuses a second running run on a thread whoever asks. With
 * several replicas (`replicas`) a run executes on the replica that started it, under a
 * lease it renews; subscribers and cancels on other replicas go through the store.
 */
export class RunService {
  private readonly reserved = new Map<string, Reservation>();
  private readonly live = new Map<string, LiveRun>();
  /** Work finished runs left to do (reports), by thread; the thread's next run waits for it. */
  private readonly background: AfterRunQueue;
  /**
   * Threads whose run has sent `run-end` and whose after-run work is not done yet: set before
   * `run-end` goes out, so whoever reacts to it (the studio lists the files) can wait for it.
   */
  private readonly ending = new Map<string, Promise<void>>();
  private accepting = true;
  private readonly leases: LeaseKeeper | undefined;

  constructor(private readonly options: RunServiceOptions) {
    this.background = new AfterRunQueue(
      options.afterRunsAtOnce ?? Math.max(1, availableParallelism()),
      (error) => options.onError?.(error),
    );
    if (options.replicas) {
      this.leases = new LeaseKeeper(options.store, options.replicas, {
        liveRunIds: () => [...this.live.keys()],
        stop: (runId) => this.live.get(runId)?.controller.abort(),
        interrupted: options.onInterrupted,
        onError: options.onError,
      });
      this.leases.start();
    }
  }

  /** Whether the thread has a run going on this server (see `busyThreads` for every replica). */
  isBusy(threadId: string): boolean {
    return this.reserved.has(threadId);
  }

  /** Which of these threads have a run going, on this replica or (shared store) any other. */
  async busyThreads(threadIds: readonly string[]): Promise<Set<string>> {
    const busy = new Set(threadIds.filter((id) => this.reserved.has(id)));
    if (!this.leases) return busy;
    const others = threadIds.filter((id) => !busy.has(id));
    for (const id of (await this.options.store.runningRuns(others)).keys()) busy.add(id);
    return busy;
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
   * Starts a run as a front end asks for it, with every guard in one place: the model
   * (NotFoundError for an unknown one), the files and the thread are found (or the thread
   * made) before anything is claimed; a thread being deleted is refused (ConflictError);
   * the thread is claimed, then the run stored and started (see `start`). Routes parse the
   * request, call this and present what it returns.
   */
  async submit(request: SubmitRun): Promise<SubmittedRun> {
    const { entry, model } = this.resolveModel(request);
    // The model's connection is dialled while the thread and the run are set up.
    model?.preconnect?.();
    const threads = this.threads();
    const files = await Promise.all((request.fileIds ?? []).map((id) => threads.file(request.owner, id)));
    const thread =
      request.threadId === undefined
        ? await threads.create(request.owner)
        : await threads.get(request.owner, request.threadId);
    const connections = await request.connections?.(thread);
    threads.assertWritable(thread.id);
    // Claimed before anything else is awaited: of two requests on one thread, exactly one passes.
    const reservation = this.reserve(thread.id);
    const { fileUrl } = request;
    const run = await this.start(
      {
        thread,
        messages: request.messages,
        continueStored: continuesStored(request),
        files,
        entry,
        model,
        system: request.system,
        stateful: request.stateful,
        cell: request.cell,
        fileUrl: fileUrl && ((path) => fileUrl(thread.id, path)),
        limits: request.limits,
        sampling: request.sampling,
        grounding: request.grounding,
        connections,
      },
      reservation,
    );
    return { run, thread, entry };
  }

  private resolveModel(request: SubmitRun): { entry: ModelEntry; model: LanguageModel | undefined } {
    if (typeof request.model === 'object') {
      return { entry: request.model.entry, model: request.cell ? undefined : request.model.model };
    }
    const { models } = this.options;
    if (!models) throw new Error('this run service was given no models: pass a resolved model to submit');
    return models.resolve(request.model, { client: request.cell === undefined });
  }

  private threads(): RunThreads {
    const { threads } = this.options;
    if (!threads) throw new Error('this run service was given no threads: submit needs them');
    return threads;
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
    const endBusy = this.options.quiet?.begin();
    const reservation = new Reservation(threadId, (ended) => {
      endBusy?.();
      if (this.reserved.get(threadId) === ended) this.reserved.delete(threadId);
    });
    this.reserved.set(threadId, reservation);
    return reservation;
  }

  /**
   * Claims the thread in the store (ConflictError when a run goes on it anywhere,
   * LimitExceededError over the owner's runs), stores the question, starts the run and
   * returns its record (status `running`).
   */
  async start(request: StartRun, reservation: Reservation): Promise<RunRecord> {
    const { store } = this.options;
    const { thread } = request;
    let record: RunRecord;
    let admitted: (() => void) | undefined;
    try {
      admitted = await this.options.admit?.(thread);
      record = await store.createRun(
        {
          id: reservation.runId,
          thread_id: thread.id,
          model: request.cell ? 'none' : request.entry.id,
          protocol: request.cell ? 'cell' : request.entry.protocol,
        },
        {
          lease: this.leases && { replica: this.leases.replica, ttlMs: this.leases.ttlMs },
          maxRunningForOwner: this.options.maxRunsPerOwner?.(thread.owner),
        },
      );
    } catch (error) {
      admitted?.();
      reservation.release();
      throw error;
    }
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
      // Asked together, the two writes share one commit (SQLite) or go at once (PostgreSQL):
      // under a burst of new chats every write awaited in turn is a turn of a busy loop.
      await Promise.all([
        question === undefined
          ? undefined
          : store.addMessage({
              id: messageId(),
              thread_id: thread.id,
              role: 'user',
              content: question,
              file_ids: files.map((f) => f.id),
              run_id: reservation.runId,
            }),
        store.touchThread(thread.id, question === undefined ? undefined : titleOf(question)),
      ]);
    } catch (error) {
      // The claim is given back: the run is stored as one that could not start, and why.
      const reason = `the run could not start: ${error instanceof Error ? error.message : String(error)}`;
      await store
        .finishRun(record.id, { status: 'failed', reason, usage: NO_USAGE, answer: null })
        .catch((e) => this.options.onError?.(e));
      admitted?.();
      reservation.release();
      throw error;
    }
    reservation.started = true;
    const live = new LiveRun(record.id, thread.id, reservation.controller);
    this.live.set(record.id, live);
    void this.execute(live, request, workspace, conversation, reservation).finally(() => admitted?.());
    return record;
  }

  /**
   * The run's events with a sequence number above `after` (default: all): stored ones,
   * then live ones as they happen, ending after `run-end`. Stops early when `abortSignal`
   * aborts. NotFoundError for a run this store does not know.
   */
  subscribe(
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal } = {},
  ): AsyncGenerator<StoredEvent, void> {
    // A run going on here is read straight from memory, with no generator in between (one
    // more layer per event counts under 200 streams).
    return (
      this.live.get(runId)?.follow((options.after ?? -1) + 1, options.abortSignal) ??
      this.storedRun(runId, options)
    );
  }

  /** `subscribe` for a run that is not going on here. */
  private async *storedRun(
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal },
  ): AsyncGenerator<StoredEvent, void> {
    const after = options.after ?? -1;
    const run = await this.options.store.getRun(runId);
    if (!run) throw new NotFoundError(`no run ${JSON.stringify(runId)}`);
    if (run.status === 'running' && this.leases) {
      // Another replica executes it (or this one is about to): follow it through the store.
      yield* followStoredRun(this.options.store, runId, {
        after,
        pollMs: this.options.replicas?.pollMs ?? 1000,
        abortSignal: options.abortSignal,
      });
      return;
    }
    for (const stored of await this.options.store.runEvents(runId, after)) {
      if (options.abortSignal?.aborted) return;
      yield stored;
    }
  }

  /**
   * Stops a run (its cell is killed within a second); with several replicas, the one
   * executing it is asked through the store. False when it is not running.
   */
  async cancel(runId: string): Promise<boolean> {
    const live = this.live.get(runId);
    if (live && !live.done) {
      live.controller.abort();
      return true;
    }
    if (live || !this.leases) return false;
    return this.options.store.requestCancel(runId);
  }

  /** Stops the thread's running analysis, wherever it runs; false when none runs. */
  async cancelThread(threadId: string): Promise<boolean> {
    const reservation = this.reserved.get(threadId);
    if (reservation) {
      reservation.controller.abort();
      return true;
    }
    if (!this.leases) return false;
    const runId = (await this.options.store.runningRuns([threadId])).get(threadId);
    return runId ? this.options.store.requestCancel(runId) : false;
  }

  /**
   * Resolves when the thread has no run and no report work going here, and (several
   * replicas) no run on another replica either — or after `timeoutMs` of waiting for those.
   */
  async idle(threadId: string, timeoutMs = 30_000): Promise<void> {
    await this.reserved.get(threadId)?.done;
    await this.background.hurry(threadId);
    if (!this.leases) return;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && (await this.options.store.runningRuns([threadId])).size) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Resolves when the work finished runs left behind (reports) is done. */
  async settled(): Promise<void> {
    await this.background.settled();
  }

  /** Refuses new runs, cancels the running ones and waits (up to `timeoutMs`) for them to end. */
  async shutdown(timeoutMs = 10_000): Promise<void> {
    this.accepting = false;
    const runs = [...this.reserved.values()];
    for (const run of runs) run.controller.abort();
    const ended = Promise.all(runs.map((r) => r.done)).then(() => this.settled());
    await Promise.race([ended, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    await this.leases?.stop();
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
    let afterRunDone = () => {};
    const emit = async (event: AgentEvent) => {
      if (event.type === 'run-end' && !ended) {
        const done = new Promise<void>((resolve) => {
          afterRunDone = resolve;
        });
        this.ending.set(thread.id, done);
        void done.then(() => {
          if (this.ending.get(thread.id) === done) this.ending.delete(thread.id);
        });
      }
      writer.add(live.push(event));
      if (event.type !== 'run-end') return;
      ended = true;
      await writer.flush();
      // The answer is stored before the run is marked finished: whoever sees it finished
      // (another replica's follower, the thread's next question) finds the answer too.
      await Promise.all([
        request.cell
          ? undefined
          : store.addMessage({
              id: messageId(),
              thread_id: thread.id,
              role: 'assistant',
              content: event.transcript,
              file_ids: [],
              run_id: live.id,
            }),
        store.touchThread(thread.id),
      ]);
      await store.finishRun(live.id, {
        status: event.status,
        reason: event.reason ?? null,
        usage: event.usage,
        answer: event.answer ?? null,
      });
    };
    try {
      // The previous run's reports are written first, so this run's cells do not see them appear.
      await this.background.hurry(thread.id);
      const events = runAnalysis({
        model: request.model,
        protocol: request.cell ? cellProtocol(request.cell.code, request.cell) : request.entry.protocol,
        messages: conversation,
        sandbox: this.options.sandboxFor?.(thread) ?? this.options.sandbox,
        session: { id: thread.id, workspace, stateful: request.stateful ?? false },
        abortSignal: live.controller.signal,
        disallowedTools: this.options.disallowedTools,
        fileUrl: request.fileUrl,
        limits: request.limits,
        runId: live.id,
        sampling: request.sampling,
        grounding: request.grounding ?? request.entry.grounding,
        readTextFile: readTextFrom(workspace),
        ...(request.connections ? { connections: request.connections } : {}),
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
      void this.background.done(thread.id).then(afterRunDone);
    }
  }

  /**
   * Resolves when the work the thread's last run left (its reports in the workspace) is done,
   * at once when there is none; `run-end` has gone out before this work is done.
   */
  afterRunDone(threadId: string): Promise<void> {
    return this.ending.get(threadId) ?? Promise.resolve();
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
      usage: NO_USAGE,
      duration_ms: 0,
      transcript: '',
    });
  }

  /** Reports are written after the client has its answer; the thread's next run and shutdown wait. */
  private afterRun(thread: ThreadRecord): void {
    const { afterRun } = this.options;
    if (afterRun) this.background.add(thread.id, () => afterRun(thread));
  }

  private async storedConversation(threadId: string): Promise<ChatMessage[]> {
    const messages = await this.options.store.listMessages(threadId);
    return messages.map((m) => ({ role: m.role, content: m.content }));
  }
}
