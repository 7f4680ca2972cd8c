import { type PreviewAnswer, PreviewAnswerSchema, type PreviewPage } from './preview-job.ts';

type Answered = Extract<PreviewAnswer, { ok: true }>;

/** What a page says besides its rows and columns (the server's profile route reads these). */
export type PageSummary = Omit<PreviewPage, 'rows' | 'columns'>;

/**
 * A preview process's answer, read where it arrives (the launcher thread), never on the
 * server's event loop: an answer may be tens of MiB, and parsing, checking and serialising it
 * again cost the main thread seconds (issue 29 §4). The page goes on as JSON bytes the server
 * writes without reading; only what the server keeps (the row index, a profile, the page's
 * summary) goes on as objects.
 */
export type ReadAnswer =
  | { valid: false }
  | { valid: true; ok: false; message: string; param?: 'sort' | 'search' | 'filter' }
  | {
      valid: true;
      ok: true;
      /** The page as JSON (an object), checked against its schema. */
      pageJson: Uint8Array;
      summary: PageSummary;
      index?: Answered['index'];
      profile?: Answered['profile'];
      csv?: Answered['csv'];
    };

export function readAnswer(text: string): ReadAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { valid: false };
  }
  const parsed = PreviewAnswerSchema.safeParse(value);
  if (!parsed.success) return { valid: false };
  if (!parsed.data.ok)
    return {
      valid: true,
      ok: false,
      message: parsed.data.message,
      ...(parsed.data.param ? { param: parsed.data.param } : {}),
    };
  const { rows: _rows, columns: _columns, ...summary } = parsed.data.page;
  return {
    valid: true,
    ok: true,
    // Its own buffer (never Node's shared pool), so it can be moved to the server's thread.
    pageJson: new TextEncoder().encode(JSON.stringify(parsed.data.page)),
    summary,
    ...(parsed.data.index ? { index: parsed.data.index } : {}),
    ...(parsed.data.profile ? { profile: parsed.data.profile } : {}),
    ...(parsed.data.csv ? { csv: parsed.data.csv } : {}),
  };
}
