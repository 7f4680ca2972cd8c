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
 * How many of the events read in order (`limit + 1` of them at most, given by their sizes in
 * characters or more) make a page: at most `limit` events and `maxChars` of text, so what one
 * response serializes is bounded whatever the thread holds.
 */
export function pageLength(
  sizes: readonly number[],
  options: EventPageOptions,
): { count: number; hasMore: boolean } {
  let chars = 0;
  for (let count = 0; count < sizes.length; count++) {
    const size = sizes[count]!;
    if (count === options.limit || (count > 0 && chars + size > options.maxChars))
      return { count, hasMore: true };
    chars += size;
  }
  return { count: sizes.length, hasMore: false };
}

/** The cursor of a stored event row (`run_id`, `seq`). */
export function cursorOf(row: Record<string, unknown> | undefined): EventCursor | undefined {
  return row ? { runId: row.run_id as string, seq: Number(row.seq) } : undefined;
}

/** A page of the rows read in order (`limit + 1` of them at most), bodies included. */
export function cutEventPage(
  rows: ReadonlyArray<Record<string, unknown>>,
  options: EventPageOptions,
): EventPage {
  const { count, hasMore } = pageLength(
    rows.map((row) => (row.body as string).length),
    options,
  );
  const page = rows.slice(0, count);
  return { bodies: page.map((row) => row.body as string), last: cursorOf(page.at(-1)), hasMore };
}
