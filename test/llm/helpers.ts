import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A plain HTTP server on 127.0.0.1 answering with `handler` (for upstreams the scripted model cannot play). */
export async function withRawServer<T>(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  body: (baseUrl: string) => Promise<T>,
): Promise<T> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** An agent that counts the connections it opens (each attempt at a refused port is one). */
export class CountingAgent extends Agent {
  connections = 0;
  override createConnection(...args: Parameters<Agent['createConnection']>) {
    this.connections += 1;
    return super.createConnection(...args);
  }
}
