import { read } from 'node:fs';
import { promisify } from 'node:util';
import type { FileSource } from './preview.ts';

const readAt = promisify(read);
const CHUNK_BYTES = 1024 * 1024;

/**
 * A file the parent opened through the Workspace and handed to this process as descriptor
 * `fd`: read by position, never by path, so a cell swapping the path for a symlink changes
 * nothing here. A file that shrinks while read just ends early.
 */
export function fdSource(fd: number, file: { path: string; bytes: number }): FileSource {
  return {
    workspaceId: '',
    path: file.path,
    bytes: file.bytes,
    modifiedMs: 0,
    async *range(start, end) {
      let at = start;
      while (at < end) {
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - at));
        const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, at);
        if (bytesRead === 0) return;
        at += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    },
  };
}

/** The bytes in [start, end) as one buffer (shorter when the file ends first). */
export async function readRange(source: FileSource, start: number, end: number): Promise<Uint8Array> {
  const out = new Uint8Array(Math.max(0, end - start));
  let at = 0;
  for await (const chunk of source.range(start, end)) {
    out.set(chunk.subarray(0, out.length - at), at);
    at += chunk.length;
  }
  return at < out.length ? out.subarray(0, at) : out;
}
