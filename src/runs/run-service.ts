import { availableParallelism } from 'node:os';
import type { QuietTime } from '../background/quiet-time.ts';
import { ConflictError } from '../errors/index.ts';
import type { ChatMessage } from '../llm/model.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { RunRecord, Store, StoredEvent, ThreadRecord } from '../store/store.ts';
import type { RunSlot } from '../threads/run-slot.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { AfterRunQueue } from './after-run-queue.ts';
import { conversationOf, storeQuestion, titleOf } from './conversation.ts';
import { LiveRun } from './live-run.ts';
import { storedRunEvents } from './remote-run.ts';
import { LeaseKeeper, type ReplicaOptions } from './replicas.ts';
import { revisingMessages, revisionOf } from './revision.ts';
import { executeRun, NO_USAGE } from './run-execution.ts';
import type { AfterRun, RunMonitor, RunPolicy } from './run-hooks.ts';
import {
  continuesStored,
  type RunModels,
  type RunThreads,
  resolveModel,
  type StartRun,
  type SubmitRun,
  type SubmittedRun,
} from './submit.ts';

export type { StartRun };
export { titleOf };

export interface RunServiceOptions {
  store: Store;
  /** The sandbox runs use, unless the policy gives a thread's run another. */
  sandbox: SandboxManager;
  /** Threads, their workspaces and files, and the lock whose run slot a run holds. */
  threads: RunThreads;
  /** Configured models, for `submit` requests that name one by id. */
  models?: RunModels;
  disallowedTools?: Set<string>;
  /** Who may run what (per-key limits); default: anyone, anything, on `sandbox`. */
  policy?: RunPolicy;
  /** Work after a run ended and was stored, in this order (e.g. reports, then usage). */
  afterRun?: readonly AfterRun[];
  /** How many runs' after-run work goes on at once (the rest wait their turn). Default: one per core. */
  afterRunsAtOnce?: number;
  /** Told of background failures and of dead replicas' runs. */
  monitor?: RunMonitor;
  /** Told when runs begin and end, so work done ahead of demand waits for quiet (issue 32). */
  quiet?: QuietTime;
  /**
   * Set when several replicas share the store (see docs/scale-out.md): runs then hold a
   * lease, other replicas' runs are followed through the store and cancelled through it.
   */
  replicas?: ReplicaOptions;
}

/**
 * Runs are tasks of the service, not of a connection (docs/spec.md#http-api,
 * docs/spec.md#persistence). `start` stores the question and the run record and returns at once; the run then advances, persists every
 * event and finishes whether or not anyone listens. Anyone may `subscribe` from any event
 * sequence number — stored events first, then live ones, with no gap and no duplicate —
 * and `cancel` is a call. Every front end (HTTP, CLI, evaluation) starts runs here, so the
 * conversation, the title and the run record are stored in this one place.
 *
 * One run per thread: claimed in memory first (synchronously, the run slot of the threads'
 * lock, `src/threads/thread-locks.ts`, the fast path of one server), then by the store, which refuses a second running run on a thread whoever asks. With
 * several replicas (`replicas`) a run executes on the replica that started it, under a
 * lease it renews; subscribers and cancels on other replicas go through the store.
 */
export class RunService {
  private readonly live = new Map<string, LiveRun>();
  /** Work finished runs left to do (reports), by thread; the thread's next run waits for it. */
  private readonly background: AfterRunQueue;
  /**
   * Threads whose run has sent `run-end` and whose after-run work is not done yet: set before
   * `run-end` goes out, so whoever reacts to it (the studio lists the files) can wait for it.
   */
  private readonly endings = new Map<string, Promise<void>>();
  private accepting = true;
  private readonly leases: LeaseKeeper | undefined;

  constructor(private readonly options: RunServiceOptions) {
    const { monitor } = options;
    this.background = new AfterRunQueue(
      options.afterRunsAtOnce ?? Math.max(1, availableParallelism()),
      (error) => monitor?.error(error),
    );
    if (options.replicas) {
      this.leases = new LeaseKeeper(options.store, options.replicas, {
        liveRunIds: () => [...this.live.keys()],
        stop: (runId) => this.live.get(runId)?.controller.abort(),
        interrupted: monitor && ((runIds) => monitor.interrupted(runIds)),
        onError: monitor && ((error) => monitor.error(error)),
      });
      this.leases.start();
    }
  }

  /** Whether the thread has a run going on this server (see `busyThreads` for every replica). */
  isBusy(threadId: string): boolean {
    return this.locks.runOf(threadId) !== undefined;
  }

  /** Which of these threads have a run going, on this replica or (shared store) any other. */
  async busyThreads(threadIds: readonly string[]): Promise<Set<string>> {
    const busy = new Set(threadIds.filter((id) => this.isBusy(id)));
    if (!this.leases) return busy;
    const others = threadIds.filter((id) => !busy.has(id));
    for (const id of (await this.options.store.runningRuns(others)).keys()) busy.add(id);
    return busy;
  }

  get running(): number {
    return this.locks.runs;
  }

  /** The id of the thread's run in progress on this server, if any. */
  activeRunId(threadId: string): string | undefined {
    const slot = this.locks.runOf(threadId);
    return slot?.started ? slot.runId : undefined;
  }

  private get locks() {
    return this.options.threads.locks;
  }

  /**
   * Starts a run as a front end asks for it, with every guard in one place: the model
   * (NotFoundError for an unknown one), the files and the thread are found (or the thread
   * made) before anything is claimed; a thread being deleted is refused (ConflictError);
   * the thread is claimed, then the run stored and started (see `start`). Routes parse the
   * request, call this and present what it returns.
   */
  async submit(request: SubmitRun): Promise<SubmittedRun> {
    const { entry, model } = resolveModel(request, this.options.models);
    // The model's connection is dialled while the thread and the run are set up.
    model?.preconnect?.();
    const { threads } = this.options;
    const files = await Promise.all((request.fileIds ?? []).map((id) => threads.file(request.owner, id)));
    const thread =
      request.threadId === undefined
        ? await threads.create(request.owner)
        : await threads.get(request.owner, request.threadId);
    const revises = await revisionOf(this.options.store, request, thread);
    const connections = await request.connections?.(thread);
    // Claimed before anything else is awaited: of two requests on one thread, exactly one
    // passes, and a thread being deleted is refused.
    const slot = this.reserve(thread.id);
    const { fileUrl } = request;
    const run = await this.start(
      {
        thread,
        messages: revises ? revisingMessages(request.messages, revises) : request.messages,
        continueStored: continuesStored(request),
        revises,
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
      slot,
    );
    return { run, thread, entry };
  }

  /**
   * Claims the thread's run slot, synchronously (of two requests, exactly one passes):
   * ConflictError when it has a run going, is being deleted, or the server is stopping.
   * Pass it to `start`, or `release` it if the request fails before.
   */
  reserve(threadId: string): RunSlot {
    if (!this.accepting) throw new ConflictError('the server is shutting down; try again shortly');
    let endBusy: (() => void) | undefined;
    const slot = this.locks.claimRun(threadId, () => endBusy?.());
    endBusy = this.options.quiet?.begin();
    return slot;
  }

  /**
   * Claims the thread in the store (ConflictError when a run goes on it anywhere,
   * LimitExceededError over the owner's runs), stores the question, starts the run and
   * returns its record (status `running`).
   */
  async start(request: StartRun, slot: RunSlot): Promise<RunRecord> {
    const { store, policy } = this.options;
    const { thread } = request;
    let record: RunRecord;
    let admitted: (() => void) | undefined;
    try {
      admitted = await policy?.admit(thread);
      record = await store.createRun(
        {
          id: slot.runId,
          thread_id: thread.id,
          model: request.cell ? 'none' : request.entry.id,
          protocol: request.cell ? 'cell' : request.entry.protocol,
        },
        {
          lease: this.leases && { replica: this.leases.replica, ttlMs: this.leases.ttlMs },
          maxRunningForOwner: policy?.maxRunsFor(thread.owner),
        },
      );
    } catch (error) {
      admitted?.();
      slot.release();
      throw error;
    }
    let workspace: Workspace;
    let conversation: ChatMessage[];
    try {
      workspace = await this.options.threads.workspace(thread);
      const files = request.files ?? [];
      if (files.length) await this.options.threads.attach(thread, files);
      conversation = await conversationOf(store, request);
      await storeQuestion(store, request, slot.runId);
    } catch (error) {
      // The claim is given back: the run is stored as one that could not start, and why.
      const reason = `the run could not start: ${error instanceof Error ? error.message : String(error)}`;
      await store
        .finishRun(record.id, { status: 'failed', reason, usage: NO_USAGE, answer: null })
        .catch((e) => this.options.monitor?.error(e));
      admitted?.();
      slot.release();
      throw error;
    }
    slot.started = true;
    const live = new LiveRun(record.id, thread.id, slot.controller);
    this.live.set(record.id, live);
    void this.execute(live, request, workspace, conversation, slot).finally(() => admitted?.());
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
      storedRunEvents(this.options.store, runId, {
        ...options,
        follow: this.leases && { pollMs: this.options.replicas?.pollMs ?? 1000 },
      })
    );
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
    const slot = this.locks.runOf(threadId);
    if (slot) {
      slot.controller.abort();
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
    await this.locks.runOf(threadId)?.done;
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
    const runs = this.locks.runSlots();
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
    slot: RunSlot,
  ): Promise<void> {
    const { thread } = request;
    let afterRunDone = () => {};
    try {
      await executeRun({
        store: this.options.store,
        live,
        request,
        workspace,
        conversation,
        sandbox: this.options.policy?.sandboxFor(thread) ?? this.options.sandbox,
        disallowedTools: this.options.disallowedTools,
        previousWork: this.background.hurry(thread.id),
        // Set before `run-end` goes out, so whoever reacts to it can wait for the reports.
        onRunEnd: () => {
          afterRunDone = this.ending(thread.id);
        },
        monitor: this.options.monitor,
      });
    } finally {
      slot.end();
      live.finish();
      this.live.delete(live.id);
      this.afterRun(thread, workspace);
      void this.background.done(thread.id).then(() => afterRunDone());
    }
  }

  /** Marks the thread's after-run work as pending; returns what marks it done. */
  private ending(threadId: string): () => void {
    let resolve!: () => void;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.endings.set(threadId, done);
    void done.then(() => {
      if (this.endings.get(threadId) === done) this.endings.delete(threadId);
    });
    return resolve;
  }

  /**
   * Resolves when the work the thread's last run left (its reports in the workspace) is done,
   * at once when there is none; `run-end` has gone out before this work is done.
   */
  afterRunDone(threadId: string): Promise<void> {
    return this.endings.get(threadId) ?? Promise.resolve();
  }

  /** Reports are written after the client has its answer; the thread's next run and shutdown wait. */
  private afterRun(thread: ThreadRecord, workspace: Workspace): void {
    const works = this.options.afterRun ?? [];
    if (!works.length) return;
    this.background.add(thread.id, async () => {
      for (const work of works) await work.afterRun(thread, workspace);
    });
  }
}
