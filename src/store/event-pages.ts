/** Where a page of a thread's events ends: the last event's run and sequence number. */
export interface EventCursor {
  runId: string;
  seq: number;
}

/** A page of a thread's events as their stored JSON text, in order. */
export interface EventPage {
  /** Each event's JSON, exactly as stored. */
  bodies: string[];
  /** The last event of the page (pass it as `after` for the next); undefined for an empty page. */
  last: EventCursor | undefined;
  /** Whether events follow this page. */
  hasMore: boolean;
}

export interface EventPageOptions {
  /** Events after this one; from the first without it. */
  after?: EventCursor;
  /** At most this many events. */
  limit: number;
  /** The page stops once its bodies reach this many characters (it holds at least one event). */
  maxChars: number;
}

/**
 * Cuts rows read in order (`limit + 1` of them at most) to a page: at most `limit` events and
 * `maxChars` of text, so what one response serializes is bounded whatever the thread holds.
 */
export function cutEventPage(
  rows: ReadonlyArray<Record<string, unknown>>,
  options: EventPageOptions,
): EventPage {
  const bodies: string[] = [];
  let chars = 0;
  let last: EventCursor | undefined;
  for (const row of rows) {
    const body = row.body as string;
    if (bodies.length === options.limit || (bodies.length > 0 && chars + body.length > options.maxChars))
      return { bodies, last, hasMore: true };
    bodies.push(body);
    chars += body.length;
    last = { runId: row.run_id as string, seq: Number(row.seq) };
  }
  return { bodies, last, hasMore: false };
}
