import { PassThrough, type Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Workspace } from '../../workspace/workspace.ts';

/** Formats already compressed: stored, not deflated again. */
const STORED = /\.(png|jpe?g|gif|webp|zip|gz|bz2|xz|zst|7z|parquet|xlsx|xlsm|docx|pptx|pdf|mp4|mp3)$/i;

/**
 * A ZIP of the workspace as a stream: files are listed through the Workspace (regular files
 * only — symlinks and special files are never listed) and each is opened only when the
 * archive reaches it, so memory and open files stay bounded however many there are. A file
 * that vanished or changed meanwhile ends the archive with an error (the client sees a cut
 * download) rather than a silently wrong entry.
 */
export async function workspaceZip(
  workspace: Workspace,
  options: { maxFiles?: number } = {},
): Promise<{ stream: Readable; files: number }> {
  const entries = await workspace.list({ limit: options.maxFiles ?? 100_000, maxDepth: 32 });
  const zip = new ZipFile();
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    zip.addReadStreamLazy(
      entry.path,
      { mtime: entry.modifiedAt, mode: 0o100644, compress: !STORED.test(entry.path) },
      (callback) => {
        workspace.open(entry.path).then(
          (file) => callback(null, file.stream()),
          (error: Error) => callback(error, undefined as unknown as Readable),
        );
      },
    );
  }
  zip.end();
  const out = new PassThrough();
  zip.outputStream.on('error', (error) => out.destroy(error));
  zip.outputStream.pipe(out);
  return { stream: out, files: entries.length };
}
