import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Profile } from '../../contract/profile.ts';
import { InvalidInputError } from '../../errors/index.ts';
import type { Workspace } from '../../workspace/workspace.ts';
import {
  formatOf,
  type Preview,
  type PreviewQuery,
  QUERYABLE_FORMATS,
  type TableCsvQuery,
  tableQueryOf,
} from './preview.ts';
import { type PreviewJob, TABLE_CSV } from './preview-job.ts';
import { type JobTurn, PreviewProcesses, type PreviewProcessOptions } from './preview-processes.ts';
import type { RowIndex } from './row-index.ts';

/** Row indexes kept (one per file version, most recently used first out last). */
const MAX_INDEXES = 64;

export interface PreviewServiceOptions extends PreviewProcessOptions {
  /** Profiles kept, one per file version, sheet and table (least recently used out first). Default 64. */
  cachedProfiles?: number;
}

/**
 * Previews of workspace files (docs/spec.md#front-ends, the inspector): picks the reader by the file's name,
 * opens the file through the thread's Workspace and hands its descriptor to a preview
 * process (`preview-processes.ts`), where every parser runs: no byte of a user's file is parsed in
 * the server. Images and PDFs are only named (the client shows them from the download URL).
 * Row indexes of CSV and text files come back from the processes and are kept here per file
 * version (workspace, path, size, time), so later pages seek instead of scanning.
 */
export class PreviewService {
  private readonly processes: PreviewProcesses;
  private readonly indexes = new Map<string, RowIndex>();
  private readonly profiles = new Map<string, Profile>();

  private readonly cachedProfiles: number;

  constructor(options: PreviewServiceOptions = {}) {
    this.processes = new PreviewProcesses(options);
    this.cachedProfiles = options.cachedProfiles ?? 64;
  }

  /** Processes started in all (for tests). */
  get processesStarted(): number {
    return this.processes.started;
  }

  /**
   * The preview as JSON bytes (a `Preview`), in parts to be written one after the other: the
   * page the process gave is written out as its launcher thread checked it, never parsed,
   * serialised or copied again on the server's event loop.
   */
  async preview(
    workspace: Workspace,
    path: string,
    query: PreviewQuery,
    turn: JobTurn,
  ): Promise<Uint8Array[]> {
    const file = await workspace.open(path);
    try {
      const base = { path: file.path, offset: query.offset, limit: query.limit, bytes: file.bytes };
      const format = formatOf(file.path);
      if (format === 'image' || format === 'pdf')
        return [
          Buffer.from(
            JSON.stringify({ ...base, kind: format, columns: [], rows: [], total_rows: 0 } satisfies Preview),
          ),
        ];
      if (file.descriptor === undefined)
        throw new Error(`the workspace gave ${file.path} without a descriptor; previews need local files`);
      const source = `/proc/${process.pid}/fd/${file.descriptor}`;
      const key = `${workspace.id}\u0000${file.path}\u0000${file.bytes}\u0000${file.modifiedAt.getTime()}`;
      const index = this.indexes.get(key);
      const tableQuery = tableQueryOf(query);
      if (tableQuery && !QUERYABLE_FORMATS.has(format))
        throw new InvalidInputError(
          `${file.path} cannot be sorted, searched or filtered; that works on CSV, TSV and Parquet files`,
          {
            param:
              tableQuery.sort !== undefined ? 'sort' : tableQuery.search !== undefined ? 'search' : 'filter',
          },
        );
      const job: Omit<PreviewJob, 'scratchDir'> = {
        source,
        format,
        path: file.path,
        bytes: file.bytes,
        offset: query.offset,
        limit: query.limit,
        ...(query.sheet !== undefined ? { sheet: query.sheet } : {}),
        ...(query.table !== undefined ? { table: query.table } : {}),
        ...(index ? { index } : {}),
        ...(tableQuery ? { query: tableQuery } : {}),
      };
      const answer = await this.processes.run(job, turn);
      if (answer.index) this.keepIndex(key, answer.index);
      else if (index) this.keepIndex(key, index);
      const queryable = QUERYABLE_FORMATS.has(format) && answer.summary.kind === 'table';
      return joinJson({ ...base, ...(queryable ? { queryable: true } : {}) }, answer.pageJson);
    } finally {
      await file.close();
    }
  }

  /**
   * A profile of the file's table (one sheet or SQLite table) from its first rows, kept per
   * file version: asking again for an unchanged file starts no process.
   */
  async profile(
    workspace: Workspace,
    path: string,
    query: { sheet?: string; table?: string },
    turn: JobTurn,
  ): Promise<Profile> {
    const file = await workspace.open(path);
    try {
      const format = formatOf(file.path);
      if (format === 'image' || format === 'pdf' || format === 'text')
        throw new InvalidInputError(
          `${file.path} is not a table; only CSV/TSV, Excel, SQLite, Parquet and JSON files can be profiled`,
          { param: 'path' },
        );
      const version = `${workspace.id}\u0000${file.path}\u0000${file.bytes}\u0000${file.modifiedAt.getTime()}`;
      const key = `${version}\u0000${query.sheet ?? ''}\u0000${query.table ?? ''}`;
      const kept = this.profiles.get(key);
      if (kept) {
        this.keepProfile(key, kept);
        return kept;
      }
      if (file.descriptor === undefined)
        throw new Error(`the workspace gave ${file.path} without a descriptor; profiles need local files`);
      const answer = await this.processes.run(
        {
          mode: 'profile',
          source: `/proc/${process.pid}/fd/${file.descriptor}`,
          format,
          path: file.path,
          bytes: file.bytes,
          offset: 0,
          limit: 0,
          ...(query.sheet !== undefined ? { sheet: query.sheet } : {}),
          ...(query.table !== undefined ? { table: query.table } : {}),
          ...(this.indexes.has(version) ? { index: this.indexes.get(version)! } : {}),
        },
        turn,
      );
      if (!answer.profile) throw new Error('a profile process gave no profile');
      const page = answer.summary;
      const profile: Profile = {
        path: file.path,
        bytes: file.bytes,
        total_rows: page.total_rows,
        ...(page.total_rows_estimated ? { total_rows_estimated: true as const } : {}),
        ...(page.sheets ? { sheets: page.sheets, sheet: page.sheet } : {}),
        ...(page.tables ? { tables: page.tables, table: page.table } : {}),
        ...answer.profile,
      };
      this.keepProfile(key, profile);
      return profile;
    } finally {
      await file.close();
    }
  }

  /**
   * The table of a CSV, TSV or Parquet file as `query` sorts and filters it, at most
   * `maxRows` rows, written as CSV by a preview process; `send` gets the open file (already
   * removed from the disk, so nothing is left behind whatever the client does).
   */
  async csv(
    workspace: Workspace,
    path: string,
    query: TableCsvQuery,
    options: { maxRows: number } & JobTurn,
  ): Promise<{ file: FileHandle; rows: number; totalRows: number; path: string }> {
    const file = await workspace.open(path);
    try {
      const format = formatOf(file.path);
      if (format !== 'csv' && format !== 'tsv' && format !== 'parquet')
        throw new InvalidInputError(
          `${file.path} cannot be downloaded as CSV; that works on CSV, TSV and Parquet files`,
          {
            param: 'path',
          },
        );
      if (file.descriptor === undefined)
        throw new Error(`the workspace gave ${file.path} without a descriptor; previews need local files`);
      const tableQuery = tableQueryOf(query);
      let handle: FileHandle | undefined;
      const answer = await this.processes.run(
        {
          mode: 'csv',
          source: `/proc/${process.pid}/fd/${file.descriptor}`,
          format,
          path: file.path,
          bytes: file.bytes,
          offset: 0,
          limit: options.maxRows,
          ...(tableQuery ? { query: tableQuery } : {}),
        },
        options,
        async (scratchDir) => {
          handle = await open(join(scratchDir, TABLE_CSV), 'r');
        },
      );
      if (!handle || !answer.csv) throw new Error('a CSV process wrote no CSV');
      return { file: handle, rows: answer.csv.rows, totalRows: answer.csv.total_rows, path: file.path };
    } finally {
      await file.close();
    }
  }

  async close(): Promise<void> {
    await this.processes.close();
  }

  /** Least recently used out first: a profile asked for again moves to the end. */
  private keepProfile(key: string, profile: Profile): void {
    this.profiles.delete(key);
    this.profiles.set(key, profile);
    while (this.profiles.size > this.cachedProfiles) this.profiles.delete(this.profiles.keys().next().value!);
  }

  private keepIndex(key: string, index: RowIndex): void {
    this.indexes.delete(key);
    this.indexes.set(key, index);
    while (this.indexes.size > MAX_INDEXES) this.indexes.delete(this.indexes.keys().next().value!);
  }
}

/** `{...fields, ...page}` as JSON parts, where the page is already a JSON object's bytes: no copy, no parse. */
function joinJson(fields: Record<string, unknown>, pageJson: Uint8Array): Uint8Array[] {
  const head = JSON.stringify(fields);
  return [Buffer.from(`${head.slice(0, -1)},`), pageJson.subarray(1)];
}
