import { RowReader, sniffDelimiter } from './delimited.ts';
import {
  type FileSource,
  inferType,
  type Preview,
  type PreviewColumn,
  type PreviewQuery,
} from './preview.ts';
import { buildRowIndex, type RowIndex, seekFor } from './row-index.ts';

/** Bytes one page may read past its start before it stops (a page of huge rows is cut). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const SAMPLE_ROWS = 200;

interface Indexed {
  bytes: number;
  modifiedMs: number;
  index: Promise<RowIndex>;
  /** CSV: the header and the column types guessed from the first rows. */
  head?: Promise<{ delimiter: string; columns: PreviewColumn[] }>;
}

/**
 * Pages of CSV/TSV files and of text files (one row per line), read through the workspace.
 * The first request for a file indexes its row offsets once (one streaming pass); every page
 * after that seeks. Indexes are kept for the most recently used files, keyed by workspace,
 * path, size and modification time, so a file a cell rewrote is indexed again.
 */
export class TextPreviewer {
  private readonly cache = new Map<string, Indexed>();

  constructor(private readonly maxEntries = 64) {}

  async preview(file: FileSource, format: 'csv' | 'tsv' | 'text', query: PreviewQuery): Promise<Preview> {
    const entry = this.entry(file, format);
    const index = await entry.index;
    if (format === 'text') {
      const page = await readRows(file, index, query.offset, query.limit, undefined);
      return {
        path: file.path,
        kind: 'text',
        columns: [{ name: 'line', type: 'string' }],
        rows: page.rows.map((r) => [r.join('')]),
        offset: query.offset,
        limit: query.limit,
        total_rows: index.rows,
        bytes: file.bytes,
        ...(page.truncated ? { truncated: true } : {}),
      };
    }
    const head = await entry.head!;
    // Row 0 is the header: data row n is file row n + 1.
    const page = await readRows(file, index, query.offset + 1, query.limit, head.delimiter);
    const width = head.columns.length;
    return {
      path: file.path,
      kind: 'table',
      columns: head.columns,
      rows: page.rows.map((row) => typed(row, head.columns, width)),
      offset: query.offset,
      limit: query.limit,
      total_rows: Math.max(0, index.rows - 1),
      bytes: file.bytes,
      ...(page.truncated ? { truncated: true } : {}),
    };
  }

  private entry(file: FileSource, format: 'csv' | 'tsv' | 'text'): Indexed {
    const key = `${file.workspaceId}\u0000${file.path}`;
    const modifiedMs = file.modifiedMs;
    let entry = this.cache.get(key);
    if (entry && (entry.bytes !== file.bytes || entry.modifiedMs !== modifiedMs)) entry = undefined;
    if (!entry) {
      const head = format === 'text' ? undefined : readHead(file, format);
      const index = (async () => {
        const delimiter = head ? (await head).delimiter : undefined;
        return buildRowIndex(file, { delimiter });
      })();
      entry = { bytes: file.bytes, modifiedMs, index, ...(head ? { head } : {}) };
      // A failed index is not kept: the next request tries again.
      index.catch(() => this.cache.delete(key));
      head?.catch(() => this.cache.delete(key));
    }
    this.cache.delete(key);
    this.cache.set(key, entry);
    while (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}

async function readHead(
  file: FileSource,
  format: 'csv' | 'tsv',
): Promise<{ delimiter: string; columns: PreviewColumn[] }> {
  {
    const firstLine = await readFirstLine(file);
    const delimiter = sniffDelimiter(firstLine, format === 'tsv' ? '\t' : ',');
    const all: RowIndex = {
      rows: Number.MAX_SAFE_INTEGER,
      checkpoints: [0],
      stride: Number.MAX_SAFE_INTEGER,
    };
    const page = await readRows(file, all, 0, SAMPLE_ROWS + 1, delimiter);
    const [header = [], ...sample] = page.rows;
    const width = Math.max(header.length, ...sample.map((r) => r.length));
    const seen = new Map<string, number>();
    const columns = Array.from({ length: width }, (_, i) => {
      let name = header[i]?.trim() || `column_${i + 1}`;
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      if (n > 1) name = `${name}_${n}`;
      return { name, type: inferType(sample.map((r) => r[i] ?? '')) };
    });
    return { delimiter, columns };
  }
}

async function readFirstLine(file: FileSource): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of file.range(0, Math.min(file.bytes, 64 * 1024))) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text.split('\n')[0] ?? '';
}

async function readRows(
  file: FileSource,
  index: RowIndex,
  row: number,
  limit: number,
  delimiter: string | undefined,
): Promise<{ rows: string[][]; truncated: boolean }> {
  if (limit === 0 || row >= index.rows) return { rows: [], truncated: false };
  const { start, skip } = seekFor(index, row);
  const reader = new RowReader({ delimiter, skip, keep: limit });
  const decoder = new TextDecoder();
  let read = 0;
  let cut = false;
  // Leaving the loop early closes the file.
  for await (const bytes of file.range(start, file.bytes)) {
    read += bytes.length;
    reader.push(decoder.decode(bytes, { stream: true }));
    if (reader.done) break;
    if (read > MAX_PAGE_BYTES) {
      cut = true;
      break;
    }
  }
  if (!reader.done && !cut) {
    reader.push(decoder.decode());
    reader.end();
  }
  return { rows: reader.rows.slice(0, limit), truncated: reader.truncated || cut };
}

function typed(row: string[], columns: PreviewColumn[], width: number): (string | number | boolean | null)[] {
  const out: (string | number | boolean | null)[] = [];
  for (let i = 0; i < width; i++) {
    const value = row[i];
    const type = columns[i]!.type;
    if (value === undefined || value === '') out.push(value === undefined ? null : '');
    else if (type === 'integer' || type === 'number') {
      const n = Number(value);
      out.push(Number.isFinite(n) ? n : value);
    } else if (type === 'boolean') out.push(/^true$/i.test(value.trim()));
    else out.push(value);
  }
  // Extra cells beyond the header are kept (shown under generated names by the client).
  for (let i = width; i < row.length; i++) out.push(row[i]!);
  return out;
}
