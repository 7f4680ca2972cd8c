import type { IncomingHttpHeaders } from 'node:http';

/**
 * How one HTTP exchange with a model server failed:
 * - `connection`: no answer began (refused, reset, unknown host, TLS);
 * - `status`: the server answered with an error status (`status`, `body`, `headers` say how);
 * - `broken`: the connection dropped after the answer began;
 * - `stream`: the server reported an error inside its event stream (`body`).
 * Internal to `src/llm`: `describeUpstreamFailure` turns it into a `ModelError` a person can act on.
 */
export type UpstreamHttpFailure = 'connection' | 'status' | 'broken' | 'stream';

export class UpstreamHttpError extends Error {
  readonly failure: UpstreamHttpFailure;
  readonly status: number | undefined;
  /** What the server said: parsed JSON, or the text when it is not JSON. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;

  constructor(
    failure: UpstreamHttpFailure,
    message: string,
    options: { status?: number; body?: unknown; headers?: IncomingHttpHeaders; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamHttpError';
    this.failure = failure;
    this.status = options.status;
    this.body = options.body;
    this.headers = options.headers ?? {};
  }
}
