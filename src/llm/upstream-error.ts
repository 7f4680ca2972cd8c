import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ModelError } from './errors/model-error.ts';
import { ModelTimeoutError } from './errors/model-timeout-error.ts';
import { retryAfterMs } from './retry.ts';

/** What went wrong in one attempt, as a typed error, and whether another attempt may help. */
export interface UpstreamFailure {
  error: ModelError;
  /** Connection errors, 429 and 5xx. */
  retryable: boolean;
  /** The server's `Retry-After`, capped. */
  retryAfterMs?: number;
}

export interface UpstreamContext {
  /** e.g. `model "deepanalyze-8b" at http://127.0.0.1:8000/v1` */
  describe: string;
  upstreamModel: string;
  /** Removed from every message, whatever the upstream echoed. */
  apiKey?: string;
  /** 1-based attempt count, for "after N attempts". */
  attempts: number;
}

/** Turns whatever the openai client (or its stream) threw into a `ModelError` a person can act on. */
export function describeUpstreamFailure(error: unknown, context: UpstreamContext): UpstreamFailure {
  const redact = (text: string): string =>
    context.apiKey ? text.replaceAll(context.apiKey, '[redacted]') : text;
  const after = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';

  if (error instanceof APIConnectionTimeoutError) {
    return {
      error: new ModelTimeoutError(redact(`${context.describe} did not answer in time`), { cause: error }),
      retryable: false,
    };
  }
  if (error instanceof APIConnectionError) {
    const reason = redact(connectionReason(error));
    return {
      error: new ModelError(
        `cannot reach ${context.describe} (${reason})${after}: is the server running, and is the base URL right?`,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (isBrokenConnection(error)) {
    const reason = redact(connectionReason(error));
    return {
      error: new ModelError(
        `the connection to ${context.describe} broke mid-answer (${reason})${after}: check the server and any proxy in between`,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (error instanceof APIError) {
    const status = error.status;
    const upstream = redact(upstreamMessage(error));
    const said =
      status === undefined ? `failed mid-stream: "${upstream}"` : `answered ${status}: "${upstream}"`;
    let advice = '';
    if (status === 401 || status === 403)
      advice = '; check the API key (api_key / api_key_env in the models file, or ANALYST_MODEL_API_KEY)';
    else if (status === 404)
      advice = `; check the model name "${context.upstreamModel}" (GET <base URL>/models lists what the server serves) and that the base URL ends in /v1`;
    else if (status === 429) advice = `${after}; the server is rate limiting: wait, or lower the load`;
    else if (status !== undefined && status >= 500)
      advice = `${after}; the model server failed: check its logs`;
    else if (status !== undefined) advice = '; the server rejected the request as sent';
    return {
      error: new ModelError(`${context.describe} ${said}${advice}`, { cause: error, upstreamStatus: status }),
      retryable: status === 429 || (status !== undefined && status >= 500),
      retryAfterMs: retryAfterMs(error.headers),
    };
  }
  if (error instanceof SyntaxError) {
    return {
      error: new ModelError(
        `${context.describe} sent a stream chunk that is not JSON: ${redact(error.message)}`,
        {
          cause: error,
        },
      ),
      retryable: false,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    error: new ModelError(`request to ${context.describe} failed: ${redact(message)}`, { cause: error }),
    retryable: false,
  };
}

/** The upstream's own words: `error.message` of an OpenAI-shaped body, a bare string (Ollama), or the body. */
function upstreamMessage(error: APIError): string {
  const body: unknown = error.error;
  if (typeof body === 'string' && body.trim() !== '') return body;
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string')
    return body.message;
  return error.message.replace(/^\d{3} /, '');
}

/** `fetch` reports a connection dropped mid-body as `TypeError: terminated` (undici) or similar. */
function isBrokenConnection(error: unknown): boolean {
  return error instanceof TypeError && /terminated|fetch failed|socket|network/i.test(error.message);
}

/** The most specific reason in the cause chain, e.g. `ECONNREFUSED 127.0.0.1:8000`. */
function connectionReason(error: unknown): string {
  let reason = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return current.message || code;
    if (current.message) reason = current.message;
    current = current.cause;
  }
  return reason;
}

/**
 * Wraps `fetch` so that error bodies in vLLM's older shape (`{"object":"error","message":…}` at
 * the top level) reach the openai client as `{"error":{…}}`; otherwise it would report
 * "400 status code (no body)" and the upstream's explanation would be lost.
 */
export function normalizingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    let body = text;
    try {
      const parsed: unknown = JSON.parse(text);
      if (
        parsed &&
        typeof parsed === 'object' &&
        !('error' in parsed) &&
        'message' in parsed &&
        typeof parsed.message === 'string'
      )
        body = JSON.stringify({ error: parsed });
    } catch {
      // Not JSON: the openai client reports the text as it is.
    }
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
