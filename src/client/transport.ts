import type { z } from 'zod';
import { ApiError } from './api-error.ts';

/** How the client reaches the API (see `AnalystClientOptions` for each field). */
export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | (() => string | undefined);
  fetch?: typeof fetch;
  onUnauthorized?: (sentKey: string | undefined) => Promise<boolean>;
}

/** A request of the API: a path below the base URL, a method, and a JSON or form body. */
export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  abortSignal?: AbortSignal;
}

/** Retries after a 401 whose key was replaced: enough for a person who mistypes it a few times. */
const MAX_KEY_ATTEMPTS = 5;

/**
 * The one place the client speaks HTTP: the key on every request, a 401 handed to
 * `onUnauthorized` and retried when it gives a new key, every failure mapped to `ApiError`,
 * and JSON answers checked against their schema.
 */
export class Transport {
  readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: TransportOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    // Called as a plain function: a browser's fetch refuses to run with another `this`.
    const injected = options.fetch ?? globalThis.fetch;
    this.fetch = (input, init) => injected(input, init);
  }

  /** The key requests carry now. */
  key(): string | undefined {
    const key = this.options.apiKey;
    return typeof key === 'function' ? key() : key;
  }

  /** The headers every request carries (the key), with `extra`. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const key = this.key();
    return key ? { ...extra, authorization: `Bearer ${key}` } : { ...extra };
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** Sends `send(key)` again after a 401 as long as `onUnauthorized` gives a new key. */
  async withKey<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const sent = this.key();
      const answer = await send();
      if (answer.status !== 401 || !this.options.onUnauthorized || attempt >= MAX_KEY_ATTEMPTS) return answer;
      if (!(await this.options.onUnauthorized(sent))) return answer;
    }
  }

  /** The answer to `request` when it is a 2xx; an ApiError otherwise. Aborting rejects with the signal's reason. */
  async send(request: ApiRequest): Promise<Response> {
    const method = request.method ?? 'GET';
    const response = await this.withKey(async () => {
      const headers = this.headers(request.headers);
      if (request.json !== undefined) headers['content-type'] = 'application/json';
      try {
        return await this.fetch(this.url(request.path), {
          method,
          headers,
          body: request.json !== undefined ? JSON.stringify(request.json) : request.form,
          signal: request.abortSignal,
        });
      } catch (error) {
        if (request.abortSignal?.aborted) throw error;
        throw new ApiError(`no answer from ${this.base || 'the server'} (${(error as Error).message})`, {
          status: 0,
          code: 'network',
          cause: error,
        });
      }
    });
    if (response.ok) return response;
    throw ApiError.fromResponse(
      response.status,
      await response.text().catch(() => ''),
      `${method} ${request.path}`,
    );
  }

  /** The JSON answer to `request`, checked against `schema`. */
  async json<T extends z.ZodTypeAny>(schema: T, request: ApiRequest): Promise<z.infer<T>> {
    const response = await this.send(request);
    return this.check(schema, await response.text(), request);
  }

  check<T extends z.ZodTypeAny>(schema: T, text: string, request: ApiRequest): z.infer<T> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const where = parsed.error.issues[0]?.path.join('.') || 'the body';
    throw new ApiError(
      `${request.method ?? 'GET'} ${request.path}: the answer is not what an Analyst server sends (${where}: ${parsed.error.issues[0]?.message}); is ${this.base || 'this'} an Analyst server of this version?`,
      { status: 502, code: 'invalid_response' },
    );
  }
}
