import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type {
  ChatMessage,
  FinishReason,
  ModelRequest,
  ModelStreamPart,
  TokenUsage,
  ToolCall,
} from './model.ts';

/** What the upstream accepts beyond the common fields. */
export interface WireStyle {
  /**
   * An OpenAI reasoning model: the token limit goes as `max_completion_tokens`, and the
   * sampling fields it refuses (`temperature`, `top_p`, penalties, `stop`) are left out.
   */
  reasoning?: boolean;
}

/**
 * The chat-completions body for a request. The caller's extra sampling fields go in first,
 * then the protocol's `extraBody`, then the typed fields, so each layer wins over the one
 * before; messages go out as they are, including DeepAnalyze's `execute` role (vLLM hands it
 * to the chat template). Undefined fields are left out rather than sent as null.
 */
export function chatCompletionBody(
  upstreamModel: string,
  request: ModelRequest,
  style: WireStyle = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...request.extra,
    ...request.extraBody,
    model: upstreamModel,
    messages: request.messages.map(wireMessage),
  };
  if (request.tools?.length) body.tools = request.tools;
  if (request.stopTokenIds?.length) body.stop_token_ids = request.stopTokenIds;
  if (request.seed !== undefined) body.seed = request.seed;
  if (style.reasoning) {
    if (request.maxTokens !== undefined) body.max_completion_tokens = request.maxTokens;
    return body;
  }
  if (request.stop?.length) body.stop = request.stop;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  return body;
}

function wireMessage(message: ChatMessage): Record<string, unknown> {
  const wire: Record<string, unknown> = { role: message.role, content: message.content };
  if (message.tool_calls?.length) wire.tool_calls = message.tool_calls;
  if (message.tool_call_id !== undefined) wire.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) wire.name = message.name;
  return wire;
}

export function finishReasonFromUpstream(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

/** vLLM's `stop_reason` on a choice (not in OpenAI's types): the stop string or token id, else null. */
export function stopReasonOf(choice: object): string | number | null {
  const value = (choice as { stop_reason?: unknown }).stop_reason;
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

export function usageOf(usage: ChatCompletion['usage'] | null | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  return { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 };
}

/** What a stream said about how it ended; filled in chunk by chunk. */
export interface StreamEnding {
  finishReason: string | null;
  stopReason: string | number | null;
  usage: TokenUsage | undefined;
}

/** The parts one chunk carries (choice 0 only: we never ask for n > 1); updates `ending`. */
export function partsOfChunk(chunk: ChatCompletionChunk, ending: StreamEnding): ModelStreamPart[] {
  const parts: ModelStreamPart[] = [];
  const usage = usageOf(chunk.usage);
  if (usage) ending.usage = usage;
  const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
  if (!choice) return parts;
  const delta = choice.delta ?? {};
  if (typeof delta.content === 'string' && delta.content !== '')
    parts.push({ type: 'text-delta', text: delta.content });
  for (const call of delta.tool_calls ?? []) {
    const part: ModelStreamPart & { type: 'tool-call-delta' } = {
      type: 'tool-call-delta',
      index: call.index,
    };
    if (call.id) part.id = call.id;
    if (call.function?.name) part.name = call.function.name;
    if (call.function?.arguments) part.argumentsDelta = call.function.arguments;
    if (part.id || part.name || part.argumentsDelta) parts.push(part);
  }
  if (choice.finish_reason) ending.finishReason = choice.finish_reason;
  const stopReason = stopReasonOf(choice);
  if (stopReason !== null) ending.stopReason = stopReason;
  return parts;
}

/** Function tool calls of a whole (non-streamed) message. */
export function toolCallsOf(message: ChatCompletion.Choice['message']): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    calls.push({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments ?? '' },
    });
  }
  return calls;
}
