import { AnalystError } from './analyst-error.ts';

/** The named thing does not exist, or is not visible to the caller (HTTP 404). */
export class NotFoundError extends AnalystError {
  readonly code: string = 'not_found';
  readonly status = 404;
  override readonly type = 'invalid_request_error';
}
