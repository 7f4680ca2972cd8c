import { AnalystError } from './analyst-error.ts';

/** No valid API key (HTTP 401). */
export class UnauthorizedError extends AnalystError {
  readonly code = 'invalid_api_key';
  readonly status = 401;
  override readonly type = 'authentication_error';
}
