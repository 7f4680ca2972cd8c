import type { ChatMessage, FinishReason, ModelRequest, ToolCall } from '../../llm/model.ts';
import type { RunContext } from '../context.ts';
import type { AgentEvent, TokenCount } from '../events.ts';

/** What one model call produced. */
export interface ModelRoundResult {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  stopReason: string | number | null;
  usage: TokenCount;
  /** True when the stream was cut at a terminator (the text ends with it). */
  terminated: boolean;
}

export interface ModelRoundOptions {
  /** Stream text to the transcript as it arrives (tag protocols) or keep it (tools mode). */
  streamText: boolean;
  /** Stop reading once the text contains one of these; the text ends with it. */
  terminators?: string[];
}

/**
 * One model call: streams the completion, yields text deltas, assembles tool calls and
 * counts tokens (estimated at 4 characters a token when the upstream sends no usage).
 */
export async function* modelRound(
  context: RunContext,
  round: number,
  request: Omit<ModelRequest, 'abortSignal'>,
  options: ModelRoundOptions,
): AsyncGenerator<AgentEvent, ModelRoundResult> {
  const model = context.model;
  if (!model) throw new Error('modelRound needs a model');
  const text = new StreamedText(options.terminators ?? []);
  let finishReason: FinishReason = 'other';
  let stopReason: string | number | null = null;
  let reported: { promptTokens: number; completionTokens: number } | undefined;
  let terminated = false;
  const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
  // The client's sampling, with the protocol's stop strings first (they are what the loop needs).
  const stop = [...new Set([...(request.stop ?? []), ...(context.sampling.stop ?? [])])];
  const stream = model.stream({
    ...context.sampling,
    ...request,
    ...(stop.length ? { stop } : {}),
    abortSignal: context.abortSignal,
  });
  for await (const part of stream) {
    if (part.type === 'text-delta') {
      const { kept, cut } = text.add(part.text);
      if (options.streamText && kept) yield { type: 'text-delta', round, text: kept };
      if (cut) {
        terminated = true;
        finishReason = 'stop';
        break; // leaving the loop ends the upstream request
      }
    } else if (part.type === 'tool-call-delta') {
      const call = calls.get(part.index) ?? { arguments: '' };
      if (part.id) call.id = part.id;
      if (part.name) call.name = (call.name ?? '') + part.name;
      if (part.argumentsDelta) call.arguments += part.argumentsDelta;
      calls.set(part.index, call);
    } else {
      finishReason = part.finishReason;
      stopReason = part.stopReason;
      reported = part.usage;
    }
  }
  const usage = reported
    ? { prompt_tokens: reported.promptTokens, completion_tokens: reported.completionTokens }
    : {
        prompt_tokens: estimateTokens(request.messages),
        completion_tokens: Math.ceil(text.length / 4),
      };
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({
      id: call.id ?? context.newId(`call_${index}`),
      type: 'function' as const,
      function: { name: call.name ?? '', arguments: call.arguments },
    }));
  return {
    text: text.toString(),
    toolCalls,
    finishReason,
    stopReason,
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    terminated,
  };
}

/**
 * A completion's text as it streams, cut after the first terminator to appear. Each delta is
 * searched together with only the end of the text before it (a terminator may straddle
 * deltas), and the text is joined once at the end: searching the whole growing string for
 * every delta flattened it each time, quadratic in the answer's length
 * (docs/performance.md#streamed-text).
 */
class StreamedText {
  private readonly parts: string[] = [];
  private tail = '';
  private readonly tailLength: number;
  length = 0;

  constructor(private readonly terminators: string[]) {
    this.tailLength = Math.max(0, ...terminators.map((t) => t.length - 1));
  }

  /** Adds a delta: what of it is kept (all of it, or up to the end of a terminator), and whether it was cut. */
  add(delta: string): { kept: string; cut: boolean } {
    const window = this.tail + delta;
    let end: number | undefined;
    for (const terminator of this.terminators) {
      const index = window.indexOf(terminator);
      if (index >= 0 && (end === undefined || index + terminator.length < end))
        end = index + terminator.length;
    }
    const kept = end === undefined ? delta : delta.slice(0, end - this.tail.length);
    if (kept) {
      this.parts.push(kept);
      this.length += kept.length;
    }
    this.tail = window.slice(Math.max(0, window.length - this.tailLength));
    return { kept, cut: end !== undefined };
  }

  toString(): string {
    return this.parts.join('');
  }
}

function estimateTokens(messages: ChatMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + (m.content?.length ?? 0) + 8, 0) / 4);
}
