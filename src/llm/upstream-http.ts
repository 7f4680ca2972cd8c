import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { UpstreamHttpError } from './errors/upstream-http-error.ts';
import { PreconnectingAgent } from './preconnecting-agent.ts';

/** What an error answer may say before we stop reading it. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The largest whole (non-streamed) answer we read. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The largest event-stream line we hold while waiting for its end. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface UpstreamHttpOptions {
  /** e.g. `http://127.0.0.1:8000/v1`; paths are appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; servers without auth (vLLM's default) get a placeholder. */
  apiKey?: string;
  /**
   * The connection pool. Default: one keep-alive agent of this client's own, which dials
   * ahead on `preconnect()` when the server is plain HTTP.
   */
  agent?: HttpAgent;
}

/** One server-sent event: its `event:` field (if any) and its `data:` lines joined. */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/**
 * The HTTP side of an OpenAI-compatible model server, on node:http with kept-alive
 * connections. Not the `openai` client: under many concurrent streams its fetch, web streams
 * and per-chunk objects took a large share of the server's main thread
 * (docs/performance.md#upstream-http), and a relay needs none of them — a request, the status, the event stream's
 * `data:` lines. Failures are `UpstreamHttpError`s; `signal` ends a request at any point.
 */
export class UpstreamHttp {
  readonly #base: URL;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  readonly #authorization: string;

  constructor(options: UpstreamHttpOptions) {
    this.#base = new URL(options.baseUrl);
    const secure = this.#base.protocol === 'https:';
    this.#request = secure ? httpsRequest : httpRequest;
    this.#agent =
      options.agent ??
      (secure
        ? new HttpsAgent({ keepAlive: true })
        : new PreconnectingAgent({
            host: this.#base.hostname.replace(/^\[(.*)\]$/, '$1'), // [::1] → ::1
            port: Number(this.#base.port || 80),
          }));
    this.#authorization = `Bearer ${options.apiKey || 'EMPTY'}`;
  }

  /** A request is coming: open its connection now if it will need a new one (plain HTTP only). */
  preconnect(): void {
    if (this.#agent instanceof PreconnectingAgent) this.#agent.preconnect();
  }

  /** POSTs `body` (JSON) to `path` and returns the parsed JSON answer. */
  async postJson(path: string, body: string, signal: AbortSignal): Promise<unknown> {
    const response = await this.#post(path, body, 'application/json', signal);
    const text = await readText(response, MAX_BODY_BYTES, 'broken');
    return JSON.parse(text) as unknown;
  }

  /**
   * POSTs `body` (JSON) to `path` and yields the `data:` payloads of the event stream that
   * answers, each parsed as JSON, until `[DONE]` (the rest is read, so the connection can be
   * reused). An event that carries an `error` is thrown as a `stream` failure.
   */
  async *postStream(path: string, body: string, signal: AbortSignal): AsyncGenerator<unknown> {
    const response = await this.#post(path, body, 'text/event-stream', signal);
    let done = false;
    for await (const sse of serverSentEvents(response)) {
      if (done) continue;
      if (sse.data.startsWith('[DONE]')) {
        done = true;
        continue;
      }
      const data = JSON.parse(sse.data) as unknown;
      const error = data && typeof data === 'object' && 'error' in data ? data.error : undefined;
      if (sse.event === 'error' || error !== undefined) {
        throw new UpstreamHttpError('stream', 'the server reported an error mid-stream', {
          body: error ?? data,
          headers: response.headers,
        });
      }
      yield data;
    }
  }

  /** Sends the request; resolves with a 2xx response, rejects with what went wrong otherwise. */
  #post(path: string, body: string, accept: string, signal: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(this.#base);
    url.pathname = `${this.#base.pathname.replace(/\/+$/, '')}${path}`;
    return new Promise((resolve, reject) => {
      const request = this.#request(url, {
        method: 'POST',
        agent: this.#agent,
        signal,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept,
          authorization: this.#authorization,
          'user-agent': 'analyst',
        },
      });
      request.on('error', (error) => reject(isAbort(error) ? error : connectionError(error)));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve(response);
          return;
        }
        readText(response, MAX_ERROR_BODY_BYTES, 'status').then(
          (text) =>
            reject(
              new UpstreamHttpError('status', `HTTP ${status}`, {
                status,
                body: parsedOrText(text),
                headers: response.headers,
              }),
            ),
          reject,
        );
      });
      request.end(body);
    });
  }
}

/** The events of a `text/event-stream` body (lines end in `\n` or `\r\n`; comments skipped). */
export async function* serverSentEvents(response: IncomingMessage): AsyncGenerator<ServerSentEvent> {
  response.setEncoding('utf8');
  let rest = '';
  let data: string[] = [];
  let event: string | undefined;
  try {
    for await (const piece of response as AsyncIterable<string>) {
      const text = rest ? rest + piece : piece;
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
        start = end + 1;
        if (line === '') {
          if (data.length) yield { event, data: data.length === 1 ? data[0]! : data.join('\n') };
          data = [];
          event = undefined;
          continue;
        }
        const colon = line.indexOf(':');
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.charCodeAt(0) === 32) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
      }
      rest = text.slice(start);
      if (rest.length > MAX_LINE_BYTES)
        throw new UpstreamHttpError('stream', `an event-stream line longer than ${MAX_LINE_BYTES} bytes`);
    }
  } catch (error) {
    if (error instanceof UpstreamHttpError || isAbort(error)) throw error;
    throw new UpstreamHttpError('broken', reasonOf(error), { cause: error });
  }
  // A last event without its blank line: take it rather than lose it.
  if (data.length) yield { event, data: data.join('\n') };
}

/** The body as text, at most `maxBytes` (the rest is not waited for). */
async function readText(
  response: IncomingMessage,
  maxBytes: number,
  failure: 'broken' | 'status',
): Promise<string> {
  const parts: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const part of response as AsyncIterable<Buffer>) {
      parts.push(part);
      bytes += part.length;
      if (bytes >= maxBytes) {
        if (failure === 'broken')
          throw new UpstreamHttpError('broken', `the answer is larger than ${maxBytes} bytes`);
        response.destroy();
        break;
      }
    }
  } catch (error) {
    if (error instanceof UpstreamHttpError || isAbort(error)) throw error;
    // An error status whose body broke off still says its status.
    if (failure === 'status') return Buffer.concat(parts).toString('utf8');
    throw new UpstreamHttpError('broken', reasonOf(error), { cause: error });
  }
  return Buffer.concat(parts).subarray(0, maxBytes).toString('utf8');
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

function connectionError(error: Error): UpstreamHttpError {
  return new UpstreamHttpError('connection', reasonOf(error), { cause: error });
}

/** The most specific reason: `connect ECONNREFUSED 127.0.0.1:8000`, `socket hang up`, … */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return error.message || (typeof code === 'string' ? code : error.name);
}
