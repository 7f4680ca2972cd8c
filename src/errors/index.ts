export { AnalystError, isAnalystError } from './analyst-error.ts';
export { ConfigurationError } from './configuration-error.ts';
export { ConflictError } from './conflict-error.ts';
export { InvalidInputError } from './invalid-input-error.ts';
export { LimitExceededError, type LimitName } from './limit-exceeded-error.ts';
export { NotFoundError } from './not-found-error.ts';
export { PayloadTooLargeError } from './payload-too-large-error.ts';
export { UnauthorizedError } from './unauthorized-error.ts';
