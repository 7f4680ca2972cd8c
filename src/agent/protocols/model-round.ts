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
  let text = '';
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
      const before = text.length;
      text += part.text;
      const cut = terminatorEnd(text, before, options.terminators);
      if (cut !== undefined) text = text.slice(0, cut);
      if (options.streamText && text.length > before)
        yield { type: 'text-delta', round, text: text.slice(before) };
      if (cut !== undefined) {
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
    : { prompt_tokens: estimateTokens(request.messages), completion_tokens: Math.ceil(text.length / 4) };
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({
      id: call.id ?? context.newId(`call_${index}`),
      type: 'function' as const,
      function: { name: call.name ?? '', arguments: call.arguments },
    }));
  return {
    text,
    toolCalls,
    finishReason,
    stopReason,
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    terminated,
  };
}

/** Where the first terminator that appeared in the newest text ends, if any. */
function terminatorEnd(text: string, before: number, terminators: string[] | undefined): number | undefined {
  let best: number | undefined;
  for (const terminator of terminators ?? []) {
    const from = Math.max(0, before - terminator.length + 1);
    const index = text.indexOf(terminator, from);
    if (index >= 0 && (best === undefined || index + terminator.length < best))
      best = index + terminator.length;
  }
  return best;
}

function estimateTokens(messages: ChatMessage[]): number {
  return Math.ceil(messages.reduce((sum, m) => sum + (m.content?.length ?? 0) + 8, 0) / 4);
}
