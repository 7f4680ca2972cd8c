import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatIssues } from '../format-issues.ts';
import { ChatRequestSchema } from './chat-request.ts';
import { predicateFailure } from './predicate.ts';
import { buildReply } from './reply.ts';
import { parseScript, type Script, type ScriptInput } from './script.ts';
import { TurnSelector } from './select-turn.ts';
import { type CompletionMeta, completionChunks, completionObject, sseData } from './stream.ts';

/** One request the server received, as it came (the body parsed when it was JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface ScriptedModel {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request to `/v1/…`, in arrival order (live: grows as requests come). */
  requests: RecordedRequest[];
  /** Everything that went against the script: failed expectations, exhaustion, bad requests. */
  failures: string[];
  /** Stops listening and drops open connections (hanging requests included). */
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  /** Validated here; see `script.ts` for the format. */
  script: ScriptInput | Script;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Starts an OpenAI-compatible server that answers chat completions from a script, the way
 * vLLM would (SSE chunks, `stop_reason`, stop strings, extra body fields accepted): a model
 * for tests and demos that needs no GPU. Throws `InvalidInputError` for an invalid script.
 */
export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const script = parseScript(options.script);
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const selector = new TurnSelector(script);
  let completions = 0;

  const fail = (res: ServerResponse, status: number, message: string): void => {
    failures.push(message);
    sendError(res, status, message);
  };

  async function chat(res: ServerResponse, body: unknown): Promise<void> {
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) return fail(res, 400, `invalid chat request: ${formatIssues(parsed.error)}`);
    const request = parsed.data;
    if (request.model !== undefined && request.model !== script.model)
      return fail(
        res,
        404,
        `The model \`${request.model}\` does not exist (this server serves "${script.model}").`,
      );
    const selection = selector.select(request);
    if ('status' in selection) return fail(res, selection.status, selection.message);
    const { turn, number } = selection;
    const unmet = turn.expect ? predicateFailure(turn.expect, request) : undefined;
    if (unmet !== undefined) return fail(res, 400, `expectation of turn ${number} failed: ${unmet}`);

    if (!(await wait(res, turn.delay_ms))) return;
    if (turn.hang) {
      await closed(res);
      return;
    }
    if (turn.status !== undefined) {
      sendError(res, turn.status, turn.error ?? `scripted error ${turn.status}`, turn.headers);
      return;
    }
    completions += 1;
    const reply = buildReply(turn, request, String(completions));
    const meta: CompletionMeta = {
      id: `chatcmpl-scripted-${completions}`,
      created: Math.floor(Date.now() / 1000),
      model: script.model,
    };
    if (!request.stream) {
      sendJson(res, 200, completionObject(reply, meta), turn.headers);
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...turn.headers,
    });
    const chunks = completionChunks(reply, meta, {
      chunkChars: turn.chunk_chars,
      includeUsage: request.stream_options?.include_usage === true,
    });
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && !(await wait(res, turn.chunk_delay_ms))) return;
      // A write to a closed response is a disconnect: stop, there is nobody to answer.
      if (res.destroyed) return;
      res.write(sseData(chunk));
    }
    res.end(sseData('[DONE]'));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://scripted').pathname;
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/_scripted/log') return sendJson(res, 200, { requests, failures });
    const raw = await readBody(req);
    if (raw === undefined) return fail(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
    let body: unknown = raw === '' ? undefined : raw;
    let bodyError: string | undefined;
    try {
      if (raw !== '') body = JSON.parse(raw);
    } catch (error) {
      bodyError = (error as Error).message;
    }
    requests.push({ method, path, body });

    if (method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: script.model, object: 'model', created: 0, owned_by: 'scripted' }],
      });
    }
    if (method === 'POST' && path === '/v1/chat/completions') {
      if (bodyError !== undefined) return fail(res, 400, `the request body is not JSON: ${bodyError}`);
      return chat(res, body);
    }
    return fail(
      res,
      404,
      `no route ${method} ${path} (this server has GET /v1/models and POST /v1/chat/completions)`,
    );
  }

  const server = createServer((req, res) => {
    res.on('error', () => {}); // a client gone mid-write; `res.destroyed` stops the writer
    handle(req, res).catch((error: unknown) => {
      const message = `scripted server error: ${error instanceof Error ? error.message : String(error)}`;
      failures.push(message);
      if (!res.headersSent) sendError(res, 500, message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}/v1`,
    requests,
    failures,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The OpenAI error shape, with vLLM's error type names. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers?: Record<string, string>,
): void {
  const types: Record<number, string> = {
    400: 'BadRequestError',
    401: 'AuthenticationError',
    403: 'PermissionDeniedError',
    404: 'NotFoundError',
    413: 'BadRequestError',
    429: 'RateLimitError',
  };
  const type = types[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequestError');
  sendJson(res, status, { error: { message, type, param: null, code: status } }, headers);
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers?: Record<string, string>,
): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The body as text; undefined when it is over the limit. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits `ms`; false if the client went away meanwhile. */
function wait(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

function closed(res: ServerResponse): Promise<void> {
  return res.destroyed ? Promise.resolve() : new Promise((resolve) => res.once('close', () => resolve()));
}
