import type { FileSource } from './preview.ts';

/**
 * Where rows start in a big delimited or text file, found in one streaming pass: the byte
 * offset of every `stride`-th row (a 1-million-row CSV keeps 1,000 numbers), so that any page
 * is read by seeking to the checkpoint before it and skipping fewer than `stride` rows. Memory
 * stays bounded whatever the file's size; newlines inside quoted CSV fields are not row ends.
 */
export interface RowIndex {
  /** Rows in the file (a last line without a newline counts; an empty file has 0). */
  rows: number;
  /** `checkpoints[k]` is the byte offset where row `k * stride` starts. */
  checkpoints: number[];
  stride: number;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

export async function buildRowIndex(
  file: FileSource,
  /** `delimiter`: a CSV file (quotes open at a cell's start); absent: plain lines. */
  options: { delimiter?: string; stride?: number },
): Promise<RowIndex> {
  const stride = options.stride ?? 1000;
  const checkpoints = [0];
  let rows = 0;
  let position = 0;
  let inQuotes = false;
  let lineHasBytes = false;
  let atCellStart = true;
  let justClosed = false;
  const delimiter = options.delimiter?.charCodeAt(0);
  const rowEnd = (at: number) => {
    rows++;
    if (rows % stride === 0) checkpoints.push(at + 1);
  };
  for await (const chunk of file.range(0, file.bytes)) {
    const bytes = chunk as Buffer;
    if (delimiter === undefined || (!inQuotes && bytes.indexOf(QUOTE) === -1)) {
      // The common case: no quotes in this chunk, so every newline ends a row.
      let at = bytes.indexOf(NEWLINE);
      let last = -1;
      while (at !== -1) {
        rowEnd(position + at);
        last = at;
        at = bytes.indexOf(NEWLINE, at + 1);
      }
      lineHasBytes = last === -1 ? lineHasBytes || bytes.length > 0 : last < bytes.length - 1;
      if (bytes.length > 0) {
        const lastByte = bytes[bytes.length - 1];
        atCellStart = lastByte === NEWLINE || lastByte === delimiter;
        justClosed = false;
      }
    } else {
      for (let i = 0; i < bytes.length; i++) {
        const byte = bytes[i];
        if (inQuotes) {
          if (byte === QUOTE) {
            inQuotes = false;
            justClosed = true;
            continue;
          }
        } else if (byte === QUOTE && (atCellStart || justClosed)) {
          inQuotes = true; // a field's opening quote, or the second of a doubled one
        } else if (byte === NEWLINE) {
          rowEnd(position + i);
          lineHasBytes = false;
          atCellStart = true;
          justClosed = false;
          continue;
        }
        justClosed = false;
        lineHasBytes = true;
        atCellStart = !inQuotes && byte === delimiter;
      }
    }
    position += bytes.length;
  }
  if (lineHasBytes) rows++;
  return { rows, checkpoints, stride };
}

/** The byte offset to start reading from for row `row`, and how many rows to skip there. */
export function seekFor(index: RowIndex, row: number): { start: number; skip: number } {
  const k = Math.min(Math.floor(row / index.stride), index.checkpoints.length - 1);
  return { start: index.checkpoints[k]!, skip: row - k * index.stride };
}
