import type { AgentEvent } from '../agent/events.ts';
import { readTextFrom } from '../agent/grounding/evidence.ts';
import { cellProtocol } from '../agent/protocols/cell.ts';
import { runAnalysis } from '../agent/run-analysis.ts';
import { isAnalystError } from '../errors/index.ts';
import type { ChatMessage } from '../llm/model.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { messageId } from './conversation.ts';
import { EventWriter } from './event-writer.ts';
import type { LiveRun } from './live-run.ts';
import type { RunMonitor } from './run-hooks.ts';
import type { StartRun } from './submit.ts';

export const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** A run the run service has stored and claimed, ready to go (see `executeRun`). */
export interface RunExecution {
  store: Store;
  live: LiveRun;
  request: StartRun;
  workspace: Workspace;
  /** The conversation the model is given (stored history, the request's messages, the system prompt). */
  conversation: ChatMessage[];
  /** The sandbox the thread's cells run in (the run policy's, or the service's). */
  sandbox: SandboxManager;
  disallowedTools?: Set<string>;
  /** Awaited before the loop starts: the work the thread's previous run left (its reports). */
  previousWork?: Promise<void>;
  /** Called once, just before `run-end` goes out. */
  onRunEnd: () => void;
  monitor?: RunMonitor;
}

/**
 * Drives the agent loop of one run: each event goes to the live log (subscribers) and the
 * event writer (the store); at `run-end` the answer is stored, then the run is marked
 * finished. Never throws: a run that breaks outside the agent loop still ends with `run-end`.
 */
export async function executeRun(run: RunExecution): Promise<void> {
  const { store, live, request, workspace } = run;
  const { thread } = request;
  const writer = new EventWriter(store, live.id);
  let ended = false;
  let told = false;
  const emit = async (event: AgentEvent) => {
    if (event.type === 'run-end' && !told) {
      told = true;
      run.onRunEnd();
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
      ...(event.cost ? { cost: event.cost } : {}),
    });
  };
  try {
    // The previous run's reports are written first, so this run's cells do not see them appear.
    await run.previousWork;
    const events = runAnalysis({
      model: request.model,
      protocol: request.cell ? cellProtocol(request.cell.code, request.cell) : request.entry.protocol,
      messages: run.conversation,
      sandbox: run.sandbox,
      session: { id: thread.id, workspace, stateful: request.stateful ?? false },
      abortSignal: live.controller.signal,
      disallowedTools: run.disallowedTools,
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
    run.monitor?.error(error);
    if (!ended) await failed(live, error, emit).catch((e) => run.monitor?.error(e));
  } finally {
    await writer.flush().catch((e) => run.monitor?.error(e));
  }
}

/** A run that broke outside the agent loop (store failure, bad options) still ends with run-end. */
async function failed(
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
