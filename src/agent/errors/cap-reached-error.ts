import { AnalystError } from '../../errors/index.ts';

/** A run reached one of its caps (rounds, tokens, time); the run ends with a note, not a loop. */
export class CapReachedError extends AnalystError {
  readonly code = 'cap_reached';
  readonly status = 200;
}
