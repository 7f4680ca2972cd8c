import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { abortError } from '../../errors/abort.ts';
import { FairPool, type FairPoolCounts } from '../../workers/fair-pool.ts';
import type { Workspace, WorkspaceEntry } from '../../workspace/workspace.ts';
import { SparseExportError } from './sparse-export-error.ts';

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

  constructor(private readonly options: WorkspaceExportOptions = {}) {
    this.pool = new FairPool(options.slots ?? 2);
  }

  counts(): FairPoolCounts {
    return this.pool.counts();
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
          const stream = await this.archive(workspace, abortSignal);
          resolve(stream);
          await new Promise((closed) => {
            if (stream.closed || stream.destroyed) closed(undefined);
            else stream.once('close', closed);
          });
        })
        .catch(reject);
    });
  }

  private async archive(workspace: Workspace, abortSignal: AbortSignal | undefined): Promise<Readable> {
    const entries = await workspace.list({ limit: this.options.maxFiles ?? 100_000, maxDepth: 32 });
    if (abortSignal?.aborted) throw abortError('the export was cancelled: its client left');
    const plan = planExport(entries, this.options.sparseAllowanceBytes ?? 64 * MiB);
    const zip = new ZipFile();
    const out = new PassThrough();
    // yazl reports a file that could not be opened, or whose size changed, on the ZipFile.
    zip.on('error', (error: Error) => out.destroy(error));
    let reading: Readable | undefined;
    const stop = () => {
      reading?.destroy();
      (zip.outputStream as PassThrough).destroy();
      out.destroy();
    };
    abortSignal?.addEventListener('abort', stop, { once: true });
    let progressed = true;
    out.on('data', () => {
      progressed = true;
    });
    const stallMs = this.options.stallTimeoutMs ?? 60_000;
    const watch = setInterval(() => {
      if (!progressed) out.destroy(new Error(`the export's client took nothing for ${stallMs / 1000} s`));
      progressed = false;
    }, stallMs);
    watch.unref();
    out.once('close', () => {
      clearInterval(watch);
      abortSignal?.removeEventListener('abort', stop);
      stop();
    });
    for (const entry of plan.files) {
      // `size`: a file that shrank meanwhile fails the archive (the client sees a cut download)
      // rather than a silently wrong entry; one that grew is read only up to its listed size.
      zip.addReadStreamLazy(
        entry.path,
        {
          mtime: entry.modifiedAt,
          mode: 0o100644,
          // Deflate's fastest level: the server's CPU is shared with every other request, a
          // download's bytes are not (docs/performance.md#export-deflate-level).
          compressionLevel: entry.compress ? 1 : 0,
          size: entry.bytes,
        },
        (callback) => {
          workspace.open(entry.path).then(
            (file) => {
              if (out.destroyed) {
                void file.close();
                return;
              }
              const stream = file.stream({ start: 0, end: entry.bytes });
              stream.on('data', (chunk: Buffer) => {
                this.bytesRead += chunk.length;
              });
              // yazl pipes the stream without listening for its errors: an unread file ends the archive.
              stream.on('error', (error) => out.destroy(error));
              reading = stream;
              callback(null, stream);
            },
            (error: Error) => callback(error, undefined as unknown as Readable),
          );
        },
      );
    }
    zip.end();
    zip.outputStream.on('error', (error) => out.destroy(error));
    zip.outputStream.pipe(out);
    return out;
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  return `${Math.ceil(bytes / MiB)} MiB`;
}
