import { ConflictError, LimitExceededError } from '../errors/index.ts';

/** Why a run became `interrupted`: the process executing it went away. */
export const INTERRUPTED_REASON = 'the server stopped while this run was in progress';

/** The store's refusal of a second running run on a thread (HTTP 409), the same from every store. */
export function threadBusyError(threadId: string): ConflictError {
  return new ConflictError(`thread ${threadId} is already running an analysis; wait for it or cancel it`, {
    param: 'thread_id',
  });
}

/** The store's refusal of a run over the owner's limit of runs at once (HTTP 429). */
export function tooManyRunsError(limit: number): LimitExceededError {
  return new LimitExceededError(
    `this API key already has ${limit} ${limit === 1 ? 'run' : 'runs'} going, its limit; wait for one to finish or cancel one`,
    { limit: 'runs', retryAfterSeconds: 5 },
  );
}
