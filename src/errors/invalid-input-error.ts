import { AnalystError } from './analyst-error.ts';

/** The caller sent something that cannot be used as given (HTTP 400, CLI exit 2). */
export class InvalidInputError extends AnalystError {
  readonly code: string = 'invalid_input';
  readonly status = 400;
  override readonly type = 'invalid_request_error';
}
