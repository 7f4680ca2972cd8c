import { AnalystError } from '../../errors/index.ts';

/** Every sandbox the caps allow is running a cell; the caller may try again shortly (HTTP 503 + Retry-After). */
export class SandboxBusyError extends AnalystError {
  readonly code = 'sandbox_busy';
  readonly status = 503;
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
  }
}
