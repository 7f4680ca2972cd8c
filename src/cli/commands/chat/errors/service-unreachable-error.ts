import { AnalystError } from '../../../../errors/analyst-error.ts';

/** No Analyst server answers at the URL `analyst chat` was given. */
export class ServiceUnreachableError extends AnalystError {
  readonly code = 'service_unreachable';
  readonly status = 503;
}
