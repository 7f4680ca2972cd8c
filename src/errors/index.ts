export { AnalystError, isAnalystError } from './analyst-error.ts';
export { ConfigurationError } from './configuration-error.ts';
export { InvalidInputError } from './invalid-input-error.ts';
export { NotFoundError } from './not-found-error.ts';
