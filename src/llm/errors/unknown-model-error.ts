import { NotFoundError } from '../../errors/index.ts';

/** A request named a model id that is not configured. */
export class UnknownModelError extends NotFoundError {
  override readonly code = 'model_not_found';
}
