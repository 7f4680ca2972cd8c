import { type FileProblem, fileProblemMessage } from '../../contract/file-problems.ts';
import { RowReader, sniffDelimiter } from './delimited.ts';
import { type FileSource, inferType, type PreviewColumn } from './preview.ts';
import type { PreviewJob, PreviewPage } from './preview-job.ts';
import { buildRowIndex, type RowIndex, seekFor } from './row-index.ts';

/** Bytes one page may read past its start before it stops (a page of huge rows is cut). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
/** Files up to this size are counted exactly on their first preview (one pass). */
const EXACT_COUNT_BYTES = 16 * 1024 * 1024;
/** Bigger files' row counts are estimated from this many bytes of their start. */
const ESTIMATE_SAMPLE_BYTES = 1024 * 1024;
const SAMPLE_ROWS = 200;

/** Reads from the file's start, skipping rows as it goes (no index needed). */
const FROM_START: RowIndex = {
  rows: Number.MAX_SAFE_INTEGER,
  checkpoints: [0],
  stride: Number.MAX_SAFE_INTEGER,
};

/**
 * A page of a CSV/TSV file or of a text file (one row per line). Runs in a preview process.
 * A small file is indexed in one pass (its row count is exact, and the index goes back to
 * the server, which hands it to later jobs on the same file version so they seek). A big
 * file's first pages are read from its start without a full scan, with a row count estimated
 * from its first megabyte (`total_rows_estimated`); a page beyond what its start reaches
 * indexes the file once.
 */
export async function previewText(
  file: FileSource,
  format: 'csv' | 'tsv' | 'text',
  job: Pick<PreviewJob, 'offset' | 'limit' | 'index' | 'path'>,
): Promise<{ page: PreviewPage; index?: RowIndex }> {
  const name = job.path.split('/').pop() ?? job.path;
  if (format !== 'text' && file.bytes === 0) {
    const empty: FileProblem = { code: 'empty', name };
    return {
      page: {
        kind: 'table',
        columns: [],
        rows: [],
        total_rows: 0,
        message: fileProblemMessage(empty),
        problem: empty,
      },
    };
  }
  const head = format === 'text' ? undefined : await readHead(file, format);
  const delimiter = head?.delimiter;
  // CSV row 0 is the header: data row n is file row n + 1.
  const headerRows = head ? 1 : 0;
  const firstRow = job.offset + headerRows;
  let index = job.index;
  let built: RowIndex | undefined;
  let rows: string[][];
  let truncated: boolean;
  let total: { rows: number; estimated: boolean };
  if (!index && file.bytes <= EXACT_COUNT_BYTES) index = built = await buildRowIndex(file, { delimiter });
  if (index) {
    ({ rows, truncated } = await readRows(file, index, firstRow, job.limit, delimiter));
    total = { rows: Math.max(0, index.rows - headerRows), estimated: false };
  } else {
    const near = await readRows(file, FROM_START, firstRow, job.limit, delimiter);
    if (near.reached) {
      ({ rows, truncated } = near);
      total = {
        rows: Math.max(rows.length + job.offset, (await estimateRows(file, delimiter)) - headerRows),
        estimated: true,
      };
    } else {
      index = built = await buildRowIndex(file, { delimiter });
      ({ rows, truncated } = await readRows(file, index, firstRow, job.limit, delimiter));
      total = { rows: Math.max(0, index.rows - headerRows), estimated: false };
    }
  }
  const problem: FileProblem | undefined = !head
    ? undefined
    : head.tooWide
      ? {
          code: 'too-many-fields',
          name,
          line: head.tooWide.line,
          saw: head.tooWide.saw,
          expected: head.headerWidth,
        }
      : total.rows === 0
        ? { code: 'header-only', name, columns: head.headerWidth }
        : undefined;
  const common = {
    ...(problem ? { message: fileProblemMessage(problem), problem } : {}),
    total_rows: total.rows,
    ...(total.estimated ? { total_rows_estimated: true as const } : {}),
    ...(truncated ? { truncated: true as const } : {}),
  };
  const page: PreviewPage = head
    ? {
        kind: 'table',
        columns: head.columns,
        rows: rows.map((row) => typed(row, head.columns, head.columns.length)),
        ...common,
      }
    : {
        kind: 'text',
        columns: [{ name: 'line', type: 'string' }],
        rows: rows.map((r) => [r.join('')]),
        ...common,
      };
  return { page, ...(built ? { index: built } : {}) };
}

/** Rows in the whole file, extrapolated from the rows in its first bytes. */
async function estimateRows(file: FileSource, delimiter: string | undefined): Promise<number> {
  const sampleBytes = Math.min(file.bytes, ESTIMATE_SAMPLE_BYTES);
  const sample: FileSource = {
    ...file,
    bytes: sampleBytes,
    range: (start, end) => file.range(start, Math.min(end, sampleBytes)),
  };
  const { rows } = await buildRowIndex(sample, { delimiter });
  return sampleBytes === 0 ? 0 : Math.round((rows * file.bytes) / sampleBytes);
}

async function readHead(
  file: FileSource,
  format: 'csv' | 'tsv',
): Promise<{
  delimiter: string;
  columns: PreviewColumn[];
  headerWidth: number;
  /** The first sampled row with more fields than the header (which pandas refuses to read). */
  tooWide?: { line: number; saw: number };
}> {
  const firstLine = await readFirstLine(file);
  const delimiter = sniffDelimiter(firstLine, format === 'tsv' ? '\t' : ',');
  const page = await readRows(file, FROM_START, 0, SAMPLE_ROWS + 1, delimiter);
  const [header = [], ...sample] = page.rows;
  const wide = sample.findIndex((row) => row.length > header.length);
  const width = Math.max(header.length, ...sample.map((r) => r.length));
  const seen = new Map<string, number>();
  const columns = Array.from({ length: width }, (_, i) => {
    let name = header[i]?.trim() || `column_${i + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name}_${n}`;
    return { name, type: inferType(sample.map((r) => r[i] ?? '')) };
  });
  // Lines as pandas counts them (the header is line 1), right while no quoted field spans lines.
  const tooWide = wide === -1 ? undefined : { line: wide + 2, saw: sample[wide]!.length };
  return { delimiter, columns, headerWidth: header.length, ...(tooWide ? { tooWide } : {}) };
}

async function readFirstLine(file: FileSource): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of file.range(0, Math.min(file.bytes, 64 * 1024))) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text.split('\n')[0] ?? '';
}

/** `reached`: the page's first row was reached (false when the bytes ran out before it). */
async function readRows(
  file: FileSource,
  index: RowIndex,
  row: number,
  limit: number,
  delimiter: string | undefined,
): Promise<{ rows: string[][]; truncated: boolean; reached: boolean }> {
  if (limit === 0 || row >= index.rows) return { rows: [], truncated: false, reached: true };
  const { start, skip } = seekFor(index, row);
  const reader = new RowReader({ delimiter, skip, keep: limit });
  const decoder = new TextDecoder();
  let read = 0;
  let cut = false;
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
  // The end of the file reached while skipping: the page is past the end (it is empty).
  const reached = !cut || !reader.skipping;
  return { rows: reader.rows.slice(0, limit), truncated: reader.truncated || cut, reached };
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
