import { AnalystError } from './analyst-error.ts';

/** A setting (environment variable, flag, config file) is wrong; the message names it. */
export class ConfigurationError extends AnalystError {
  readonly code: string = 'configuration_error';
  readonly status = 500;
}
