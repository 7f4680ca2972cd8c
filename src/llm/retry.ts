import type { IncomingHttpHeaders } from 'node:http';
import { requestAborted as abortError } from './upstream-call.ts';

/** The longest `Retry-After` we wait for; a longer one is shortened to this. */
export const MAX_RETRY_AFTER_MS = 10_000;

/**
 * How long the server asked us to wait, from `retry-after-ms` (OpenAI) or `Retry-After`
 * (seconds or an HTTP date), capped at {@link MAX_RETRY_AFTER_MS}; undefined without a usable header.
 */
export function retryAfterMs(
  headers: IncomingHttpHeaders | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = first(headers?.['retry-after-ms']);
  const retryAfter = first(headers?.['retry-after']);
  let wait: number | undefined;
  if (milliseconds && Number.isFinite(Number(milliseconds))) wait = Number(milliseconds);
  else if (retryAfter && retryAfter.trim() !== '' && Number.isFinite(Number(retryAfter)))
    wait = Number(retryAfter) * 1000;
  else if (retryAfter && !Number.isNaN(Date.parse(retryAfter))) wait = Date.parse(retryAfter) - now;
  if (wait === undefined) return undefined;
  return Math.min(Math.max(wait, 0), MAX_RETRY_AFTER_MS);
}

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * The wait before retry number `retry` (0 for the first retry): the server's `Retry-After`
 * when it gave one, else `baseDelayMs · 2^retry` scaled by a random factor in [0.5, 1) so
 * that many clients do not retry in step.
 */
export function retryDelayMs(options: {
  retry: number;
  baseDelayMs: number;
  retryAfterMs?: number;
  random?: () => number;
}): number {
  if (options.retryAfterMs !== undefined) return options.retryAfterMs;
  const random = options.random ?? Math.random;
  return Math.round(options.baseDelayMs * 2 ** options.retry * (0.5 + random() / 2));
}

/** Waits `ms`; rejects with an `AbortError` as soon as `abortSignal` aborts. */
export function sleep(ms: number, abortSignal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (abortSignal?.aborted) {
      reject(abortError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      abortSignal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    abortSignal?.addEventListener('abort', onAbort, { once: true });
  });
}
