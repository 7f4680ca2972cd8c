import type { Workspace } from '../../workspace/workspace.ts';
import { formatOf, type Preview, type PreviewQuery } from './preview.ts';
import type { PreviewJob } from './preview-job.ts';
import { PreviewProcesses, type PreviewProcessOptions } from './preview-processes.ts';
import type { RowIndex } from './row-index.ts';

/** Row indexes kept (one per file version, most recently used first out last). */
const MAX_INDEXES = 64;

/**
 * Previews of workspace files (SPEC §8, the inspector): picks the reader by the file's name,
 * opens the file through the thread's Workspace and hands its descriptor to a preview
 * process (`preview-processes.ts`), where every parser runs: no byte of a user's file is parsed in
 * the server. Images and PDFs are only named (the client shows them from the download URL).
 * Row indexes of CSV and text files come back from the processes and are kept here per file
 * version (workspace, path, size, time), so later pages seek instead of scanning.
 */
export class PreviewService {
  private readonly processes: PreviewProcesses;
  private readonly indexes = new Map<string, RowIndex>();

  constructor(options: PreviewProcessOptions = {}) {
    this.processes = new PreviewProcesses(options);
  }

  /** Processes started in all (for tests). */
  get processesStarted(): number {
    return this.processes.started;
  }

  async preview(
    workspace: Workspace,
    path: string,
    query: PreviewQuery,
    abortSignal?: AbortSignal,
  ): Promise<Preview> {
    const file = await workspace.open(path);
    try {
      const base = { path: file.path, offset: query.offset, limit: query.limit, bytes: file.bytes };
      const format = formatOf(file.path);
      if (format === 'image' || format === 'pdf')
        return { ...base, kind: format, columns: [], rows: [], total_rows: 0 };
      if (file.descriptor === undefined)
        throw new Error(`the workspace gave ${file.path} without a descriptor; previews need local files`);
      const source = `/proc/${process.pid}/fd/${file.descriptor}`;
      const key = `${workspace.id}\u0000${file.path}\u0000${file.bytes}\u0000${file.modifiedAt.getTime()}`;
      const index = this.indexes.get(key);
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
      };
      const answer = await this.processes.run(job, abortSignal);
      if (answer.index) this.keepIndex(key, answer.index);
      else if (index) this.keepIndex(key, index);
      return { ...base, ...answer.page };
    } finally {
      await file.close();
    }
  }

  async close(): Promise<void> {
    await this.processes.close();
  }

  private keepIndex(key: string, index: RowIndex): void {
    this.indexes.delete(key);
    this.indexes.set(key, index);
    while (this.indexes.size > MAX_INDEXES) this.indexes.delete(this.indexes.keys().next().value!);
  }
}
