import type { Heard } from '../plan.ts';
import type { CueKind } from './cues.ts';
import type { Reading } from './reading.ts';

/** Cues that only frame a question ("what", "is …"): recognising them says nothing. */
const FRAMING: ReadonlySet<CueKind> = new Set(['which', 'who', 'yes-no', 'each']);

/** What a question names and asks, for the answer to a question that could not be mapped. */
export function heardIn(reading: Reading): Heard {
  const columns = [...reading.columns].sort((a, b) => a.start - b.start).map((m) => m.column.name);
  const values = [...reading.values]
    .sort((a, b) => a.start - b.start)
    .map((m) => ({ column: m.column.name, value: m.value }));
  const words = reading.cues
    .filter((c) => !FRAMING.has(c.kind))
    // A cue inside a column's name ("total" in "total_sales") is part of the name, said already.
    .filter((c) => !reading.columns.some((m) => c.start >= m.start && c.end <= m.end))
    .map((c) => c.text);
  return {
    columns: [...new Set(columns)],
    values: values.filter((v, i) => values.findIndex((w) => w.value === v.value) === i),
    words: [...new Set(words.map((w) => w.toLowerCase()))],
  };
}
