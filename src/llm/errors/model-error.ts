import { AnalystError } from '../../errors/index.ts';

/** The upstream model failed (connection, 5xx after retries, or a 4xx it gave us). */
export class ModelError extends AnalystError {
  readonly code: string = 'model_error';
  readonly status: number = 502;
  /** The upstream HTTP status, when there was one. */
  readonly upstreamStatus: number | undefined;

  constructor(message: string, options: { cause?: unknown; upstreamStatus?: number } = {}) {
    super(message, { cause: options.cause });
    this.upstreamStatus = options.upstreamStatus;
  }
}
