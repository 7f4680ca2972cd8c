import { AnalystError } from './analyst-error.ts';

/** A body or upload over its size limit (HTTP 413). */
export class PayloadTooLargeError extends AnalystError {
  readonly code = 'payload_too_large';
  readonly status = 413;
  override readonly type = 'invalid_request_error';
}
