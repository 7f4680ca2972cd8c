import { ModelError } from './errors/model-error.ts';
import { UpstreamHttpError } from './errors/upstream-http-error.ts';
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

/** Turns whatever one attempt threw (transport, parsing) into a `ModelError` a person can act on. */
export function describeUpstreamFailure(error: unknown, context: UpstreamContext): UpstreamFailure {
  const redact = (text: string): string =>
    context.apiKey ? text.replaceAll(context.apiKey, '[redacted]') : text;
  const after = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';

  if (error instanceof UpstreamHttpError && error.failure === 'connection') {
    return {
      error: new ModelError(
        `cannot reach ${context.describe} (${redact(error.message)})${after}: is the server running, and is the base URL right?`,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (error instanceof UpstreamHttpError && error.failure === 'broken') {
    return {
      error: new ModelError(
        `the connection to ${context.describe} broke mid-answer (${redact(error.message)})${after}: check the server and any proxy in between`,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (error instanceof UpstreamHttpError) {
    const status = error.status;
    const upstream = redact(upstreamMessage(error.body, status));
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
      error: new ModelError(`${context.describe} sent an answer that is not JSON: ${redact(error.message)}`, {
        cause: error,
      }),
      retryable: false,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    error: new ModelError(`request to ${context.describe} failed: ${redact(message)}`, { cause: error }),
    retryable: false,
  };
}

/**
 * The upstream's own words: `error.message` of an OpenAI-shaped body, `message` at the top
 * level (vLLM's older shape), a bare string (Ollama), or the text it sent.
 */
function upstreamMessage(body: unknown, status: number | undefined): string {
  const said = (value: unknown): string | undefined => {
    if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, 2000);
    if (value && typeof value === 'object' && 'message' in value && typeof value.message === 'string')
      return value.message;
    return undefined;
  };
  const error = body && typeof body === 'object' && 'error' in body ? body.error : undefined;
  return said(error) ?? said(body) ?? (status === undefined ? 'no details' : `HTTP ${status} with no body`);
}
