import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { abortError } from '../../errors/abort.ts';
import { FairPool, type FairPoolCounts } from '../../workers/fair-pool.ts';
import type { Workspace, WorkspaceEntry } from '../../workspace/workspace.ts';
import { SparseExportError } from './sparse-export-error.ts';
import { ZipThreads } from './zip/zip-threads.ts';

/** Formats already compressed: stored, not deflated again. */
const STORED = /\.(png|jpe?g|gif|webp|zip|gz|bz2|xz|zst|7z|parquet|xlsx|xlsm|docx|pptx|pdf|mp4|mp3)$/i;

const MiB = 1024 * 1024;

export interface WorkspaceExportOptions {
  /** Exports streamed at once; the rest wait, fairly by key (`FairPool`). Default 2. */
  slots?: number;
  /**
   * Bytes one export may read beyond what its files occupy on disk: the holes of sparse files,
   * which cost the workspace nothing but cost an export a read (and a deflate) each. A
   * workspace whose files claim more than this beyond their allocation is refused. Default 64 MiB.
   */
  sparseAllowanceBytes?: number;
  /** Files in one archive at most (the listing stops there). Default 100,000. */
  maxFiles?: number;
  /**
   * An export whose client takes no byte for this long is ended, so a client that stops
   * reading does not hold a slot of the pool for ever. Default 60 s.
   */
  stallTimeoutMs?: number;
  /** An archive thread idle this long ends, giving its memory back. Default 30 s. */
  threadIdleExitMs?: number;
}

/** How one archive will be made, decided from the listing before any byte is read. */
export interface ExportPlan {
  files: Array<WorkspaceEntry & { compress: boolean }>;
  /** The most bytes the export reads: each file up to its listed size, never beyond. */
  readBytes: number;
}

/**
 * What exporting the listed files costs, and whether it may: every file is read up to its
 * listed size, so an export reads what the workspace's files occupy plus their holes, and
 * the holes are bounded by `sparseAllowanceBytes`. A file with holes (its apparent size
 * over its allocation by more than a MiB) is stored, not deflated: deflating zeros is work
 * for the server to save the client bytes, and those bytes are bounded by the allowance.
 */
export function planExport(entries: WorkspaceEntry[], sparseAllowanceBytes: number): ExportPlan {
  const files: ExportPlan['files'] = [];
  let readBytes = 0;
  let holeBytes = 0;
  const sparse: Array<{ path: string; holes: number }> = [];
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const holes = Math.max(0, entry.bytes - (entry.allocatedBytes ?? entry.bytes));
    holeBytes += holes;
    if (holes > MiB) sparse.push({ path: entry.path, holes });
    files.push({ ...entry, compress: holes <= MiB && !STORED.test(entry.path) });
    readBytes += entry.bytes;
  }
  if (holeBytes > sparseAllowanceBytes) {
    sparse.sort((a, b) => b.holes - a.holes);
    const named = sparse
      .slice(0, 3)
      .map((s) => s.path)
      .join(', ');
    throw new SparseExportError(
      `the workspace's files claim ${formatBytes(holeBytes)} more than they occupy on disk (sparse files: ` +
        `${named}${sparse.length > 3 ? `, and ${sparse.length - 3} more` : ''}); an export reads at most ` +
        `${formatBytes(sparseAllowanceBytes)} of holes: delete those files or download them one by one`,
    );
  }
  return { files, readBytes };
}

/**
 * ZIP exports of workspaces (docs/spec.md#http-api). Each export holds a slot of a fair pool
 * from its listing until its stream closes, so a key that asks for many waits its turn and
 * another key's export waits at most one of them; a client that hangs up (its signal aborts,
 * or the stream is destroyed) stops the reading at once and frees the slot.
 */
export class WorkspaceExports {
  readonly pool: FairPool;
  /** Bytes read from workspace files by exports, in all (for tests and status). */
  bytesRead = 0;

  private readonly threads: ZipThreads;

  constructor(private readonly options: WorkspaceExportOptions = {}) {
    this.pool = new FairPool(options.slots ?? 2);
    this.threads = new ZipThreads({ threads: options.slots ?? 2, idleExitMs: options.threadIdleExitMs });
  }

  counts(): FairPoolCounts {
    return this.pool.counts();
  }

  /** Archive threads started so far, and alive now (for tests and status). */
  threadCounts(): { started: number; alive: number } {
    return { started: this.threads.slots.started, alive: this.threads.slots.alive };
  }

  /** Ends the archive threads (a running export fails). */
  close(): Promise<void> {
    return this.threads.close();
  }

  /**
   * The archive as a stream, once `owner` has a slot; the slot is released when the stream
   * closes (finished, failed or destroyed). Throws `SparseExportError` before any byte is read
   * when the workspace's holes exceed the allowance, or an AbortError when `abortSignal` aborts first.
   */
  zip(owner: string, workspace: Workspace, abortSignal?: AbortSignal): Promise<Readable> {
    return new Promise((resolve, reject) => {
      this.pool
        .run(owner, abortSignal, async () => {
          const { stream, made } = await this.archive(workspace, abortSignal);
          resolve(stream);
          // The slot is held until the client has the archive and its thread is free again.
          await Promise.all([made, finished(stream).catch(() => {})]);
        })
        .catch(reject);
    });
  }

  private async archive(
    workspace: Workspace,
    abortSignal: AbortSignal | undefined,
  ): Promise<{ stream: Readable; made: Promise<void> }> {
    const entries = await workspace.list({ limit: this.options.maxFiles ?? 100_000, maxDepth: 32 });
    if (abortSignal?.aborted) throw abortError('the export was cancelled: its client left');
    const plan = planExport(entries, this.options.sparseAllowanceBytes ?? 64 * MiB);
    const out = new PassThrough();
    const stop = () => out.destroy();
    abortSignal?.addEventListener('abort', stop, { once: true });
    // Progress is a chunk the client took (not a 'data' listener, which would make `out`
    // flow before the response reads it).
    let progressed = true;
    const stallMs = this.options.stallTimeoutMs ?? 60_000;
    const watch = setInterval(() => {
      if (!progressed) out.destroy(new Error(`the export's client took nothing for ${stallMs / 1000} s`));
      progressed = false;
    }, stallMs);
    watch.unref();
    out.once('close', () => {
      clearInterval(watch);
      abortSignal?.removeEventListener('abort', stop);
    });
    const made = this.threads.archive({
      entries: plan.files.map((entry) => ({
        path: entry.path,
        mtimeMs: entry.modifiedAt.getTime(),
        compress: entry.compress,
        size: entry.bytes,
      })),
      open: (index) => workspace.open(plan.files[index]!.path),
      out,
      onRead: (bytes) => {
        this.bytesRead += bytes;
      },
      onTaken: () => {
        progressed = true;
      },
    });
    return { stream: out, made };
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  return `${Math.ceil(bytes / MiB)} MiB`;
}
