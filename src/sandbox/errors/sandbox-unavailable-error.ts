import { AnalystError } from '../../errors/index.ts';

/** No engine answers, or the sandbox image is missing; the message says what was tried and how to fix it. */
export class SandboxUnavailableError extends AnalystError {
  readonly code = 'sandbox_unavailable';
  readonly status = 503;
}
