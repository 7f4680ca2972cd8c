import { constants, openSync } from 'node:fs';
import { type FileProblem, fileProblemMessage } from '../../contract/file-problems.ts';
import { fdSource, readRange } from './fd-source.ts';
import { readJson } from './json.ts';
import { readParquet } from './parquet.ts';
import { type FileSource, looksBinary, looksLikeText } from './preview.ts';
import {
  type PreviewAnswer,
  type PreviewJob,
  PreviewJobSchema,
  type PreviewPage,
  TABLE_CSV,
} from './preview-job.ts';
import { MAX_PROFILE_ROWS, profileOf } from './profile.ts';
import { copySqlite, readSqlite } from './sqlite.ts';
import { queryPage, queryToCsv, type TableSource } from './table-query.ts';
import { TableQueryProblem } from './table-sql.ts';
import { previewText } from './text-preview.ts';
import { readXlsx } from './xlsx.ts';

/**
 * A preview process (started by `preview-processes.ts` under prlimit, ahead of its job):
 * reads one job as JSON on stdin, opens the server's descriptor of the file, writes one
 * answer as JSON on stdout and exits.
 * Everything a hostile file can make a parser do — allocate, spin, copy — happens here, in a
 * process the server kills at its limits.
 */
const MAX_WHOLE_BYTES = { xlsx: 64 * 1024 * 1024, json: 32 * 1024 * 1024 };

/** A profile: the first rows of the table as one big page, summed up (the rows stay here). */
async function profile(job: PreviewJob): Promise<Extract<PreviewAnswer, { ok: true }>> {
  const answer = await run({ ...job, offset: 0, limit: MAX_PROFILE_ROWS });
  const { page } = answer;
  if (page.kind !== 'table' && page.kind !== 'json')
    throw new Error('only tables (CSV/TSV, Excel, SQLite, Parquet, JSON records) can be profiled');
  return { ...answer, page: { ...page, rows: [] }, profile: profileOf(page.columns, page.rows) };
}

/** The file as DuckDB reads it, when it can (CSV, TSV, Parquet). */
function tableSource(job: PreviewJob): TableSource {
  if (job.format !== 'csv' && job.format !== 'tsv' && job.format !== 'parquet')
    throw new TableQueryProblem(
      'sorting, searching, filtering and CSV downloads work on CSV, TSV and Parquet files',
      job.query?.sort !== undefined ? 'sort' : job.query?.search !== undefined ? 'search' : 'filter',
    );
  return { source: job.source, format: job.format, scratchDir: job.scratchDir };
}

/** A page of the table as the job's query sorts and filters it. */
async function queried(job: PreviewJob): Promise<Extract<PreviewAnswer, { ok: true }>> {
  const page = await queryPage(tableSource(job), job.query ?? {}, job);
  return {
    ok: true,
    page: { kind: 'table', columns: page.columns, rows: page.rows, total_rows: page.totalRows },
  };
}

/** The table as the job's query sorts and filters it, as CSV in the job's directory. */
async function csv(job: PreviewJob): Promise<Extract<PreviewAnswer, { ok: true }>> {
  const written = await queryToCsv(
    tableSource(job),
    job.query ?? {},
    `${job.scratchDir}/${TABLE_CSV}`,
    job.limit,
  );
  return {
    ok: true,
    page: { kind: 'table', columns: [], rows: [], total_rows: written.totalRows },
    csv: { rows: written.rows, total_rows: written.totalRows },
  };
}

async function run(job: PreviewJob): Promise<Extract<PreviewAnswer, { ok: true }>> {
  if (job.query) return queried(job);
  const file = fdSource(
    openSync(job.source, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY),
    job,
  );
  const query = { offset: job.offset, limit: job.limit };
  switch (job.format) {
    case 'csv':
    case 'tsv': {
      // A binary file named .csv is said to be one, not shown as a garbled table.
      const head = await readRange(file, 0, Math.min(job.bytes, 8192));
      if (looksBinary(head)) {
        const problem: FileProblem = { code: 'not-text', name: job.path.split('/').pop() ?? job.path };
        return {
          ok: true,
          page: {
            kind: 'binary',
            columns: [],
            rows: [],
            total_rows: 0,
            message: fileProblemMessage(problem),
            problem,
          },
        };
      }
      return { ok: true, ...(await previewText(file, job.format, job)) };
    }
    case 'text':
      return { ok: true, ...(await previewText(file, job.format, job)) };
    case 'unknown': {
      const head = await readRange(file, 0, Math.min(job.bytes, 8192));
      if (looksLikeText(head)) return { ok: true, ...(await previewText(file, 'text', job)) };
      return { ok: true, page: { kind: 'binary', columns: [], rows: [], total_rows: 0 } };
    }
    case 'xlsx': {
      const page = readXlsx(await readWhole(file, MAX_WHOLE_BYTES.xlsx), { ...query, sheet: job.sheet });
      return {
        ok: true,
        page: {
          kind: 'table',
          columns: page.columns,
          rows: page.rows,
          total_rows: page.totalRows,
          ...(page.sheets ? { sheets: page.sheets, sheet: page.sheet } : {}),
          ...(page.truncated ? { truncated: true } : {}),
        },
      };
    }
    case 'json': {
      const text = new TextDecoder().decode(await readWhole(file, MAX_WHOLE_BYTES.json));
      const page = readJson(text, query);
      const kind: PreviewPage['kind'] = page.asTable ? 'json' : 'text';
      return { ok: true, page: { kind, columns: page.columns, rows: page.rows, total_rows: page.totalRows } };
    }
    case 'parquet': {
      const page = await readParquet(
        {
          byteLength: job.bytes,
          slice: async (start, end = job.bytes) => {
            const bytes = await readRange(file, start, end);
            if (bytes.length !== end - start) throw new Error('the file changed while it was read');
            return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
          },
        },
        query,
      );
      return {
        ok: true,
        page: { kind: 'table', columns: page.columns, rows: page.rows, total_rows: page.totalRows },
      };
    }
    case 'sqlite': {
      const page = readSqlite(await copySqlite(file, job.scratchDir), { ...query, table: job.table });
      return {
        ok: true,
        page: {
          kind: 'table',
          columns: page.columns,
          rows: page.rows,
          total_rows: page.totalRows,
          tables: page.tables,
          table: page.table,
        },
      };
    }
  }
}

async function readWhole(file: FileSource, cap: number): Promise<Uint8Array> {
  if (file.bytes > cap)
    throw new Error(`the file is larger than ${cap / 1024 / 1024} MiB, too large to preview`);
  return readRange(file, 0, file.bytes);
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  let answer: PreviewAnswer;
  try {
    const job = PreviewJobSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    answer = await (job.mode === 'profile' ? profile(job) : job.mode === 'csv' ? csv(job) : run(job));
  } catch (error) {
    answer = {
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof TableQueryProblem ? { param: error.param } : {}),
    };
  }
  process.stdout.write(JSON.stringify(answer), () => process.exit(0));
}

await main();
