import { InvalidInputError } from '../errors/index.ts';

/** The bytes of /workspace/data.json for an ephemeral cell, and whether everything fit. */
export interface InjectedInput {
  json: Buffer;
  complete: boolean;
}

/**
 * Serialises `{data, results}` for a cell. When it exceeds `maxBytes`, rows are dropped from
 * the end of `data` and of each result's `rows` (never from the middle, never silently:
 * `complete` turns false and the cell's result says `input_complete: false`).
 */
export function prepareInjectedInput(data: unknown, results: unknown, maxBytes: number): InjectedInput {
  const full = serialise({ data: data ?? null, results: results ?? null });
  if (full.length <= maxBytes) return { json: full, complete: true };

  const rowsOf = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined);
  const dataRows = rowsOf(data);
  const resultRows = Array.isArray(results)
    ? results.map((r) => (r && typeof r === 'object' ? rowsOf((r as { rows?: unknown }).rows) : undefined))
    : [];
  const build = (fraction: number): Buffer => {
    const keep = (rows: unknown[]) => rows.slice(0, Math.floor(rows.length * fraction));
    const trimmedResults = Array.isArray(results)
      ? results.map((r, i) => {
          const rows = resultRows[i];
          return rows ? { ...(r as object), rows: keep(rows), rows_truncated: true } : r;
        })
      : (results ?? null);
    return serialise({ data: dataRows ? keep(dataRows) : (data ?? null), results: trimmedResults });
  };
  // Binary search on the share of rows kept; 20 steps is finer than one row in a million.
  let low = 0;
  let high = 1;
  let best = build(0);
  if (best.length > maxBytes) {
    throw new InvalidInputError(
      `the injected input is larger than the ${maxBytes}-byte cap even without rows; send less metadata`,
      { param: 'data' },
    );
  }
  for (let step = 0; step < 20; step++) {
    const middle = (low + high) / 2;
    const candidate = build(middle);
    if (candidate.length <= maxBytes) {
      best = candidate;
      low = middle;
    } else {
      high = middle;
    }
  }
  return { json: best, complete: false };
}

function serialise(value: unknown): Buffer {
  try {
    return Buffer.from(JSON.stringify(value));
  } catch (error) {
    throw new InvalidInputError(`data and results must be JSON-serialisable: ${(error as Error).message}`, {
      param: 'data',
    });
  }
}
