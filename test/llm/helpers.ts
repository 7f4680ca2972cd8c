import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { OpenAICompatibleModel, type OpenAICompatibleOptions } from '../../src/llm/openai-compatible.ts';
import {
  type RecordedRequest,
  type ScriptedModel,
  type ScriptInput,
  startScriptedModel,
} from '../../src/llm/scripted/index.ts';

/** Runs `body` against a scripted model on 127.0.0.1 and always closes it. */
export async function withScriptedModel<T>(
  script: ScriptInput,
  body: (server: ScriptedModel) => Promise<T>,
): Promise<T> {
  const server = await startScriptedModel({ script });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** The chat-completions requests a scripted model received, bodies as sent. */
export function chatRequests(server: ScriptedModel): Array<Record<string, unknown>> {
  return server.requests
    .filter((r: RecordedRequest) => r.path === '/v1/chat/completions')
    .map((r) => r.body as Record<string, unknown>);
}

/** An adapter for the scripted model, with fast retries unless told otherwise. */
export function modelFor(
  server: ScriptedModel,
  options: Partial<OpenAICompatibleOptions> = {},
): OpenAICompatibleModel {
  return new OpenAICompatibleModel({
    id: 'test-model',
    baseUrl: server.url,
    upstreamModel: 'scripted',
    retryBaseDelayMs: 1,
    ...options,
  });
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** What a stream of chunks adds up to, the way a client would assemble it. */
export function assembleChunks(chunks: ChatCompletionChunk[]) {
  let text = '';
  const calls: Array<{ id?: string; name?: string; arguments: string }> = [];
  let finish: string | null = null;
  let stopReason: unknown = null;
  for (const chunk of chunks) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += choice.delta.content ?? '';
    for (const call of choice.delta.tool_calls ?? []) {
      calls[call.index] ??= { arguments: '' };
      const slot = calls[call.index]!;
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name = call.function.name;
      slot.arguments += call.function?.arguments ?? '';
    }
    finish = choice.finish_reason ?? finish;
    stopReason = (choice as { stop_reason?: unknown }).stop_reason ?? stopReason;
  }
  return { text, calls, finish, stopReason };
}
