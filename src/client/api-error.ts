import { z } from 'zod';
import { AnalystError } from '../errors/analyst-error.ts';

// Lenient: a proxy or an older server may leave out `type` or `param`.
const ErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    code: z.string().nullable().optional(),
    param: z.string().nullable().optional(),
  }),
});

/**
 * Whatever made a call of the API fail, as one error a front end catches: the HTTP `status`
 * (0 when no answer came: `network`, or `cancelled` by the caller), the server's stable
 * `code` and its `message` from the error body (`{error: {message, code}}`,
 * docs/spec.md#http-api), or what was wrong with an answer that is not the API's
 * (`invalid_response`).
 */
export class ApiError extends AnalystError {
  readonly status: number;
  readonly code: string;

  constructor(
    message: string,
    options: { status: number; code: string; param?: string | null; cause?: unknown },
  ) {
    super(message, { cause: options.cause, param: options.param ?? null });
    this.status = options.status;
    this.code = options.code;
  }

  /** The error a non-2xx answer means: the server's message and code when its body has them. */
  static fromResponse(status: number, body: string, what: string): ApiError {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      // not JSON: say the status and the start of the text
    }
    const wire = ErrorBodySchema.safeParse(parsed);
    if (wire.success)
      return new ApiError(wire.data.error.message, {
        status,
        code: wire.data.error.code ?? `http_${status}`,
        param: wire.data.error.param ?? null,
      });
    const text = body.trim().slice(0, 200);
    return new ApiError(`${what} failed with HTTP ${status}${text ? `: ${text}` : ''}`, {
      status,
      code: `http_${status}`,
    });
  }
}
