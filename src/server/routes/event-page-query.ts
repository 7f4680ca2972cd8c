import { InvalidInputError } from '../../errors/index.ts';
import type { EventPageOptions } from '../../store/event-pages.ts';

/**
 * The most event text one page of `GET /v1/threads/{id}/events` serializes (one event more
 * only when a single event is larger): the response costs the same whatever the thread holds.
 */
export const EVENTS_PAGE_MAX_CHARS = 1024 * 1024;
/** Events a page holds at most, and by default. */
export const EVENTS_PAGE_MAX_LIMIT = 1000;

const CURSOR = /^([A-Za-z0-9_-]{1,100}):(\d{1,9})$/;

/** `?after=<last_id of the previous page>&limit=1..1000` of the thread events route. */
export function eventPageOf(query: unknown): EventPageOptions {
  const { after, limit } = (query ?? {}) as { after?: unknown; limit?: unknown };
  let parsed = EVENTS_PAGE_MAX_LIMIT;
  if (limit !== undefined) {
    parsed = Number(limit);
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > EVENTS_PAGE_MAX_LIMIT)
      throw new InvalidInputError(`limit must be a whole number from 1 to ${EVENTS_PAGE_MAX_LIMIT}`, {
        param: 'limit',
      });
  }
  const options: EventPageOptions = { limit: parsed, maxChars: EVENTS_PAGE_MAX_CHARS };
  if (after === undefined || after === '') return options;
  const match = typeof after === 'string' ? CURSOR.exec(after) : null;
  if (!match)
    throw new InvalidInputError('after must be the last_id of a previous page of events', { param: 'after' });
  return { ...options, after: { runId: match[1]!, seq: Number(match[2]) } };
}
