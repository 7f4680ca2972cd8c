import type { AgentEvent } from '../../agent/events.ts';
import { type RunAnalysisOptions, runAnalysis } from '../../agent/run-analysis.ts';
import { ConflictError } from '../../errors/index.ts';
import type { ChatMessage, LanguageModel, ModelEntry } from '../../llm/model.ts';
import type { SandboxManager } from '../../sandbox/sandbox.ts';
import type { Store, ThreadRecord } from '../../store/store.ts';
import { newId } from '../ids.ts';
import { EventWriter } from './event-writer.ts';
import { Reservation } from './reservation.ts';
import { workspaceTextReader } from './workspace-text.ts';

export interface StartRun {
  thread: ThreadRecord;
  /** The conversation for the model; the last user message is the question. */
  conversation: ChatMessage[];
  entry: ModelEntry;
  model: LanguageModel | undefined;
  fileUrl: (path: string) => string;
  /** The client went away or asked to stop. */
  abortSignal?: AbortSignal;
  /** The request's sampling options and grounding mode, passed to the agent as they are. */
  analysis?: Pick<RunAnalysisOptions, 'sampling' | 'grounding'>;
}

/**
 * Runs analyses for threads, one at a time per thread, storing every event as it happens
 * (so a run can be replayed after a restart) and the assistant's transcript at the end.
 */
export class RunManager {
  private readonly active = new Map<string, Reservation>();
  /** Work a finished run left to do (reports), by thread; awaited by the thread's next run, `settled()` and shutdown. */
  private readonly background = new Map<string, Promise<void>>();
  private accepting = true;

  constructor(
    private readonly store: Store,
    private readonly sandbox: SandboxManager,
    private readonly options: {
      disallowedTools: Set<string>;
      /** Called after a run ended and was stored (e.g. to write reports). */
      afterRun?: (thread: ThreadRecord) => Promise<void>;
      onError?: (error: unknown) => void;
    },
  ) {}

  isBusy(threadId: string): boolean {
    return this.active.has(threadId);
  }

  /**
   * Claims the thread for one run, synchronously: ConflictError when it has a run going (or
   * the server is stopping). Pass the reservation to `start`, or `release` it when the
   * request fails before that.
   */
  reserve(threadId: string): Reservation {
    if (!this.accepting) throw new ConflictError('the server is shutting down; try again shortly');
    if (this.active.has(threadId)) {
      throw new ConflictError(`thread ${threadId} is already running an analysis; wait for it or cancel it`);
    }
    const reservation = new Reservation(threadId, (ended) => {
      if (this.active.get(threadId) === ended) this.active.delete(threadId);
    });
    this.active.set(threadId, reservation);
    return reservation;
  }

  get running(): number {
    return this.active.size;
  }

  /**
   * Runs an analysis on a reserved thread and returns its events; the caller must read them
   * to the end (the run advances as they are read), also after cancelling, so that every
   * event is stored.
   */
  start(run: StartRun, reservation: Reservation): AsyncGenerator<AgentEvent, void> {
    reservation.started = true;
    return this.execute(run, reservation);
  }

  private async *execute(run: StartRun, reservation: Reservation): AsyncGenerator<AgentEvent, void> {
    const { runId, controller } = reservation;
    const onAbort = () => controller.abort();
    run.abortSignal?.addEventListener('abort', onAbort, { once: true });
    let writer: EventWriter | undefined;
    try {
      // The previous run's reports are written first, so this run's cells do not see them appear.
      await this.background.get(run.thread.id);
      await this.store.createRun({
        id: runId,
        thread_id: run.thread.id,
        model: run.entry.id,
        protocol: run.entry.protocol,
      });
      writer = new EventWriter(this.store, runId);
      for await (const event of runAnalysis({
        model: run.model,
        protocol: run.entry.protocol,
        messages: run.conversation,
        sandbox: this.sandbox,
        session: { id: run.thread.id, workspaceDir: run.thread.workspace_dir },
        abortSignal: controller.signal,
        disallowedTools: this.options.disallowedTools,
        fileUrl: run.fileUrl,
        runId,
        ...run.analysis,
        readTextFile: workspaceTextReader(run.thread),
      })) {
        writer.add(event);
        if (event.type === 'run-end') {
          await writer.flush();
          await this.store.finishRun(runId, {
            status: event.status,
            reason: event.reason ?? null,
            usage: event.usage,
            answer: event.answer ?? null,
          });
          await this.store.addMessage({
            id: newId('msg'),
            thread_id: run.thread.id,
            role: 'assistant',
            content: event.transcript,
            file_ids: [],
            run_id: runId,
          });
          await this.store.touchThread(run.thread.id);
        }
        yield event;
      }
    } finally {
      run.abortSignal?.removeEventListener('abort', onAbort);
      await writer?.flush().catch((e) => this.options.onError?.(e));
      reservation.end();
      // Reports are written after the client has its answer; shutdown waits for them.
      if (this.options.afterRun) {
        const task: Promise<void> = this.options
          .afterRun(run.thread)
          .catch((e) => this.options.onError?.(e))
          .finally(() => {
            if (this.background.get(run.thread.id) === task) this.background.delete(run.thread.id);
          });
        this.background.set(run.thread.id, task);
      }
    }
  }

  /** Stops the thread's running analysis (its cell is killed); false when none runs. */
  cancel(threadId: string): boolean {
    const run = this.active.get(threadId);
    if (!run) return false;
    run.controller.abort();
    return true;
  }

  /** Resolves when the work finished runs left behind (reports) is done. */
  async settled(): Promise<void> {
    while (this.background.size) await Promise.all([...this.background.values()]);
  }

  /** Refuses new runs, cancels the running ones and waits (up to `timeoutMs`) for them to end. */
  async shutdown(timeoutMs = 10_000): Promise<void> {
    this.accepting = false;
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort();
    const ended = Promise.all(runs.map((r) => r.done)).then(() => this.settled());
    await Promise.race([ended, new Promise((r) => setTimeout(r, timeoutMs))]);
  }
}
