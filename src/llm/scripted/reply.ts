import { type ChatRequest, contentText, stopStrings } from './chat-request.ts';
import type { Turn } from './script.ts';

/** What one turn answers to one request, after vLLM's rules for stop strings. */
export interface ScriptedReply {
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: 'stop' | 'length' | 'tool_calls';
  stopReason: string | number | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const codePoints = (text: string): number => [...text].length;

/**
 * Plays a turn against a request. When the request's `stop` strings occur in the scripted
 * content, the text ends just before the earliest one, nothing after it (tool calls included)
 * is generated, and vLLM reports `finish_reason: "stop"` with that string as `stop_reason`.
 * `callIdPrefix` makes default tool-call ids unique per request.
 */
export function buildReply(turn: Turn, request: ChatRequest, callIdPrefix: string): ScriptedReply {
  let content = turn.content ?? '';
  let toolCalls = (turn.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${callIdPrefix}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  let finishReason = turn.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  let stopReason = turn.stop_reason ?? null;

  let earliest: { at: number; stop: string } | undefined;
  for (const stop of stopStrings(request)) {
    const at = content.indexOf(stop);
    if (at >= 0 && (earliest === undefined || at < earliest.at)) earliest = { at, stop };
  }
  if (earliest) {
    content = content.slice(0, earliest.at);
    toolCalls = [];
    finishReason = 'stop';
    stopReason = earliest.stop;
  }

  const promptChars = request.messages.reduce((sum, m) => sum + codePoints(contentText(m.content)), 0);
  const completionChars =
    codePoints(content) + toolCalls.reduce((sum, c) => sum + codePoints(c.name) + codePoints(c.arguments), 0);
  const prompt_tokens = turn.usage?.prompt_tokens ?? Math.ceil(promptChars / 4);
  const completion_tokens = turn.usage?.completion_tokens ?? Math.ceil(completionChars / 4);
  return {
    content,
    toolCalls,
    finishReason,
    stopReason,
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
  };
}
