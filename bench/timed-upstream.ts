import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { addAcceptHandles } from '../src/server/accept-handles.ts';

/**
 * A tiny OpenAI-compatible streaming model for the API bench, in the bench's own process so
 * that sender and receiver share `performance.now()`. Each reply is planned by the last user
 * message, `bench chunks=<n> gap_ms=<ms>` (Analyst wraps the question in its prompt; the plan
 * survives that): a role chunk, n content chunks `[t=<send time>] `, then
 * `\n<Answer>done</Answer>`, a finish chunk, a usage chunk if asked, and [DONE].
 * gap_ms=0 sends back to back, yielding one event-loop turn per chunk (a model in another
 * process interleaves with the reader; a synchronous loop here would not) and honouring
 * backpressure; gap_ms>0 sleeps between chunks.
 */
export interface TimedUpstream {
  /** Base URL ending in /v1. */
  url: string;
  /** Chat requests served, and what went wrong (a bench that saw failures is void). */
  served: number;
  failures: string[];
  /** Closes the kept-alive connections no request is using (the next requests connect anew). */
  closeIdle(): void;
  close(): Promise<void>;
}

export const UPSTREAM_MODEL = 'bench-upstream';
const TIMESTAMP = /^\[t=(\d+(?:\.\d+)?)\] $/;

/** The message that plans a reply. */
export function planMessage(chunks: number, gapMs: number): string {
  return `bench chunks=${chunks} gap_ms=${gapMs}`;
}

/** The send time a content chunk carries, or undefined for other text. */
export function sentAt(text: string): number | undefined {
  const match = TIMESTAMP.exec(text);
  return match ? Number(match[1]) : undefined;
}

export async function startTimedUpstream(): Promise<TimedUpstream> {
  const upstream: TimedUpstream = {
    url: '',
    served: 0,
    failures: [],
    closeIdle: () => {},
    close: async () => {},
  };
  const server = createServer((req, res) => {
    res.on('error', () => {}); // the reader hung up (Analyst stops reading at </Answer>)
    serve(req, res, upstream).catch((error: unknown) => {
      upstream.failures.push(error instanceof Error ? error.message : String(error));
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A model server accepts a burst of connections at once (uvicorn's asyncio loop takes up to
  // 100 a wake-up); Node 20 takes one a turn, which made this stand-in the bottleneck of
  // 200 new chats. The same copies of the listening socket Analyst's server uses.
  const closeCopies = await addAcceptHandles(server);
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.closeIdle = () => server.closeIdleConnections();
  upstream.close = () =>
    new Promise<void>((resolve) => {
      closeCopies();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return upstream;
}

async function serve(req: IncomingMessage, res: ServerResponse, upstream: TimedUpstream): Promise<void> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404).end();
    upstream.failures.push(`unexpected ${req.method} ${req.url}`);
    return;
  }
  const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    messages?: Array<{ role: string; content: unknown }>;
  };
  const question = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content;
  const plan = /bench chunks=(\d+) gap_ms=(\d+(?:\.\d+)?)/.exec(typeof question === 'string' ? question : '');
  if (!body.stream || !plan) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ error: { message: 'stream a planned bench message', type: 'BadRequestError' } }),
    );
    upstream.failures.push('a request without stream or plan');
    return;
  }
  upstream.served += 1;
  const chunks = Number(plan[1]);
  const gapMs = Number(plan[2]);
  const meta = `"id":"chatcmpl-bench-${upstream.served}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":"${UPSTREAM_MODEL}"`;
  const delta = (content: string, finish: string | null = null) =>
    `data: {${meta},"choices":[{"index":0,"delta":${content === '' && finish ? '{}' : `{"content":${JSON.stringify(content)}}`},"logprobs":null,"finish_reason":${finish ? `"${finish}"` : 'null'}}]}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(
    `data: {${meta},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`,
  );
  for (let i = 0; i < chunks; i++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    else await nextTurn();
    if (res.destroyed) return;
    // Stamped as late as possible: the line is built and written in the same turn.
    const ok = res.write(delta(`[t=${performance.now().toFixed(4)}] `));
    if (!ok) await drained(res);
  }
  if (res.destroyed) return;
  res.write(delta('\n<Answer>done</Answer>'));
  res.write(delta('', 'stop'));
  if (body.stream_options?.include_usage)
    res.write(
      `data: {${meta},"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":${chunks + 4},"total_tokens":${chunks + 14}}}\n\n`,
    );
  res.end('data: [DONE]\n\n');
}

/** Resolves when the response takes more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve();
    };
    res.once('drain', settle);
    res.once('close', settle);
  });
}
