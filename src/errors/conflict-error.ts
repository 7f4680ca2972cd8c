import { AnalystError } from './analyst-error.ts';

/** The request clashes with the current state, e.g. a thread that is already running (HTTP 409). */
export class ConflictError extends AnalystError {
  readonly code: string = 'conflict';
  readonly status = 409;
  override readonly type = 'invalid_request_error';
}
