import { AnalystError } from '../../../../errors/analyst-error.ts';

/** The service answered a request of `analyst chat` with an error (its message is passed on). */
export class ServiceError extends AnalystError {
  readonly code: string;
  readonly status: number;

  constructor(message: string, options: { status: number; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.code = options.code ?? 'service_error';
  }
}
