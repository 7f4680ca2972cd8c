import { ModelError } from './model-error.ts';

/** The upstream model did not answer (or went silent mid-stream) within the limit. */
export class ModelTimeoutError extends ModelError {
  override readonly code = 'model_timeout';
  override readonly status = 504;
}
