/**
 * The one error base of Analyst. Every failure that crosses a layer is an AnalystError
 * with a stable `code` (for programs), an HTTP `status` (mapped once, at the edge) and a
 * message that says how to fix it.
 */
export abstract class AnalystError extends Error {
  /** Stable machine-readable code, e.g. `sandbox_unavailable`. */
  abstract readonly code: string;
  /** HTTP status this error maps to at the server edge. */
  abstract readonly status: number;
  /** OpenAI error `type` field. */
  readonly type: string = 'server_error';
  /** Which request parameter was at fault, if any (OpenAI `param`). */
  readonly param: string | null;

  constructor(message: string, options: { cause?: unknown; param?: string | null } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.param = options.param ?? null;
  }
}

export function isAnalystError(value: unknown): value is AnalystError {
  return value instanceof AnalystError;
}
