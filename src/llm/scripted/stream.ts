import type { ScriptedReply } from './reply.ts';

/** Identity of one completion, shared by all its chunks. */
export interface CompletionMeta {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

/** Splits text into pieces of `size` Unicode code points (never halves a surrogate pair). */
export function splitCodePoints(text: string, size: number): string[] {
  const points = [...text];
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces;
}

/**
 * The `chat.completion.chunk` objects of a streamed reply, in the order vLLM sends them:
 * a role chunk with empty content, content pieces, each tool call (id and name first, then its
 * arguments in pieces), a final chunk with `finish_reason` and `stop_reason`, and, when asked
 * for with `stream_options.include_usage`, a usage chunk with no choices.
 */
export function completionChunks(
  reply: ScriptedReply,
  meta: CompletionMeta,
  options: { chunkChars: number; includeUsage: boolean },
): object[] {
  const chunk = (delta: object, extra: object = {}): object => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitCodePoints(reply.content, options.chunkChars))
    chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitCodePoints(call.arguments, options.chunkChars))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, { finish_reason: reply.finishReason, stop_reason: reply.stopReason }));
  if (options.includeUsage)
    chunks.push({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [],
      usage: reply.usage,
    });
  return chunks;
}

/** The `chat.completion` object of a non-streamed reply (vLLM: content null when only tools were called). */
export function completionObject(reply: ScriptedReply, meta: CompletionMeta): object {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content === '' && reply.toolCalls.length > 0 ? null : reply.content,
          tool_calls: reply.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
        stop_reason: reply.stopReason,
      },
    ],
    usage: reply.usage,
  };
}

/** One server-sent event line as OpenAI and vLLM write it. */
export function sseData(payload: object | '[DONE]'): string {
  return `data: ${payload === '[DONE]' ? payload : JSON.stringify(payload)}\n\n`;
}
