import { isAnalystError } from '../errors/index.ts';
import { randomHex } from '../ids/random-hex.ts';
import type { ChatMessage, GroundingMode, LanguageModel, ProtocolName } from '../llm/model.ts';
import type { SamplingOptions } from '../llm/sampling.ts';
import type { SandboxManager, SessionRef } from '../sandbox/sandbox.ts';
import { Budget, DEFAULT_RUN_LIMITS, type RunLimits } from './budget.ts';
import type { RunConnections } from './connections.ts';
import type { RunContext } from './context.ts';
import { CapReachedError } from './errors/cap-reached-error.ts';
import type { AgentEvent, RunStatus } from './events.ts';
import { AnswerChecker } from './grounding/answer-checker.ts';
import type { ReadTextFile } from './grounding/evidence.ts';
import type { AgentProtocol } from './protocol.ts';
import { PROTOCOLS } from './protocols/index.ts';
import { RunCostMeter } from './run-cost.ts';
import { answerOf, repairTranscript } from './transcript/tags.ts';
import { TranscriptWriter } from './view/transcript.ts';

export interface RunAnalysisOptions {
  /** The model to call; omit for the offline analyst. */
  model?: LanguageModel;
  /** A protocol name or an implementation. */
  protocol: ProtocolName | AgentProtocol;
  /** The conversation; its last user message is the question. */
  messages: ChatMessage[];
  sandbox: SandboxManager;
  /** The thread's session sandbox: `{ id, workspaceDir, stateful? }`. */
  session: SessionRef;
  limits?: Partial<RunLimits>;
  abortSignal?: AbortSignal;
  /** Tools hidden from the model (tools protocol), e.g. from DISALLOWED_TOOLS. */
  disallowedTools?: Iterable<string>;
  /** How `<File>` blocks link a workspace file. Default: the relative path. */
  fileUrl?: (path: string) => string;
  /** Sampling for every model call (temperature, top_p, max_tokens, seed, …); unset fields keep the model's defaults. */
  sampling?: SamplingOptions;
  /**
   * How the answer's numbers are checked (docs/spec.md#grounding): `check` (default) emits an
   * `answer-grounding` event after each answer; `repair` also gives the model one more round,
   * capped like every round, to compute or remove numbers that appear in no output; `off`.
   */
  grounding?: GroundingMode;
  /**
   * Reads back a text file the run wrote (workspace-relative path), so numbers a cell wrote to
   * a file and the answer quotes count as grounded. Implement it with the workspace layer.
   */
  readTextFile?: ReadTextFile;
  /** Injected clock (ms) and ids, for tests. */
  now?: () => number;
  newId?: (prefix: string) => string;
  runId?: string;
  /** The thread's database connections, already checked against the key (docs/connections.md). */
  connections?: RunConnections;
}

/**
 * Runs one analysis and yields its typed events (docs/spec.md#run-events), from run-start to run-end.
 * It never throws for what happens during the run: a model failure, a cap, a cancel all
 * end the stream with an `error` and/or `run-end` event saying why. Only invalid options
 * throw, before the first event.
 */
export async function* runAnalysis(options: RunAnalysisOptions): AsyncGenerator<AgentEvent, void> {
  const protocol = typeof options.protocol === 'string' ? PROTOCOLS[options.protocol] : options.protocol;
  if (!protocol) throw new Error(`unknown protocol ${String(options.protocol)}`);
  if (protocol.needsModel !== false && !options.model)
    throw new Error(`the ${protocol.name} protocol needs a model`);
  const now = options.now ?? Date.now;
  const newId = options.newId ?? ((prefix: string) => `${prefix}-${randomHex(6)}`);
  const budget = new Budget({ ...DEFAULT_RUN_LIMITS, ...options.limits }, now);
  const question = latestQuestion(options.messages);

  // One signal for the protocol: the caller's cancel, or the time cap.
  const internal = new AbortController();
  const onCallerAbort = () => internal.abort();
  options.abortSignal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.abortSignal?.aborted) internal.abort();
  const timeCap = setTimeout(() => internal.abort(), Math.max(0, budget.deadline - now()));

  const checker = new AnswerChecker({
    mode: options.grounding ?? 'check',
    messages: options.messages,
    budget,
    ...(options.readTextFile ? { readTextFile: options.readTextFile } : {}),
  });
  const context: RunContext = {
    model: options.model,
    modelId: options.model?.id ?? 'offline',
    sandbox: options.sandbox,
    session: options.session,
    messages: options.messages,
    question,
    budget,
    abortSignal: internal.signal,
    disallowedTools: new Set(options.disallowedTools ?? []),
    newId,
    fileUrl: options.fileUrl ?? ((path) => path),
    sampling: options.sampling ?? {},
    repairAnswer: (howToAnswer) => checker.repairInstruction(howToAnswer),
    noteQueryRows: (cellId, rows) => checker.addRows(cellId, rows),
    ...(options.connections?.list.length ? { connections: options.connections } : {}),
  };

  const writer = new TranscriptWriter(context.fileUrl);
  const meter = new RunCostMeter(now);
  let transcript = '';
  let answer: string | undefined;
  let status: RunStatus = 'completed';
  let reason: string | undefined;
  let round = 0;
  yield {
    type: 'run-start',
    round: 0,
    run_id: options.runId ?? newId('run'),
    model: context.modelId,
    protocol: protocol.name,
    question,
    at: new Date(now()).toISOString(),
  };
  const events = protocol.run(context);
  let finished = false;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        finished = true;
        answer = next.value.answer;
        break;
      }
      const event = next.value;
      if ('round' in event && event.round > round) round = event.round;
      transcript += writer.push(event);
      checker.push(event);
      meter.push(event);
      yield event;
      // The grounding of an answer follows it at once, before the protocol goes on (and may
      // ask for a repair round).
      if (event.type === 'answer-end') {
        const grounding = await checker.check(event);
        if (grounding) yield grounding;
      }
    }
  } catch (error) {
    finished = true;
    const answered = checker.lastAnswer;
    if (options.abortSignal?.aborted) {
      status = 'cancelled';
      reason = 'the run was cancelled';
    } else if ((error instanceof CapReachedError || internal.signal.aborted) && answered !== undefined) {
      // A cap reached during a repair round: the answer given before it stands.
      answer = answered;
      const cap = error instanceof CapReachedError ? error.message : 'the run reached its time cap';
      yield {
        type: 'notice',
        round,
        message: `the repair round was cut short (${cap}); the answer stands as first given`,
      };
    } else if (error instanceof CapReachedError || internal.signal.aborted) {
      status = 'capped';
      reason =
        error instanceof CapReachedError
          ? error.message
          : `the run reached its time cap of ${Math.round(budget.limits.maxDurationMs / 1000)} s without a final answer`;
      yield { type: 'notice', round, message: reason };
    } else {
      status = 'failed';
      const code = isAnalystError(error) ? error.code : 'internal_error';
      reason = error instanceof Error ? error.message : String(error);
      yield { type: 'error', round, code, message: reason };
    }
  } finally {
    clearTimeout(timeCap);
    options.abortSignal?.removeEventListener('abort', onCallerAbort);
    if (!finished) {
      // The consumer stopped listening (e.g. the client went away): stop the model and the cell.
      internal.abort();
      await events.return({}).catch(() => {});
    }
  }
  const repaired = transcript ? repairTranscript(transcript) : '';
  answer ??= status === 'completed' ? answerOf(repaired) : undefined;
  yield {
    type: 'run-end',
    round,
    status,
    ...(reason ? { reason } : {}),
    usage: budget.totals,
    duration_ms: Math.round(now() - budget.startedAt),
    cost: meter.cost(),
    transcript: repaired,
    ...(answer !== undefined ? { answer } : {}),
  };
}

/** The text of the latest user message (content parts already flattened by the caller). */
function latestQuestion(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user' && message.content) return message.content;
  }
  return '';
}
