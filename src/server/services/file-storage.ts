import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadTooLargeError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';

export interface SaveOptions {
  /** Bytes the file may have; more is PayloadTooLargeError. */
  maxBytes: number;
  /** Called with the total so far before each chunk is written; throws to refuse it. */
  beforeWrite?: (totalBytes: number) => void;
  /** Whether the source stopped short because a limit cut it (multipart `fileSize`). */
  truncated?: () => boolean;
}

/** Large enough that copying a multi-GiB file is a few thousand reads, small enough to be no memory. */
const BUFFER_BYTES = 1024 * 1024;

/** Uploaded files' bytes, one file per id in a directory (metadata lives in the store). */
export class FileStorage {
  constructor(private readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  path(id: string): string {
    return join(this.dir, id);
  }

  /**
   * Streams `source` to disk under `id`, hashing as it goes; the bytes are never held in
   * memory beyond the stream's buffers. Over `maxBytes` the partial file is removed and
   * PayloadTooLargeError thrown: nothing half-written remains. `beforeWrite` sees the total
   * before each chunk is written and may throw to stop the upload (a quota).
   */
  async save(id: string, source: Readable, options: SaveOptions): Promise<{ bytes: number; sha256: string }> {
    const { maxBytes, beforeWrite, truncated } = options;
    const temporary = join(this.dir, `.upload-${randomHex(8)}`);
    const hash = createHash('sha256');
    let bytes = 0;
    // Created before anything can fail: a stream's own open could land after the cleanup below.
    const file = await open(temporary, 'wx', 0o600).catch((error: unknown) => {
      source.destroy();
      throw error;
    });
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            bytes += chunk.length;
            if (bytes > maxBytes) throw new PayloadTooLargeError(`the file is larger than ${maxBytes} bytes`);
            beforeWrite?.(bytes);
            hash.update(chunk);
            yield chunk;
          }
        },
        file.createWriteStream({ highWaterMark: BUFFER_BYTES }),
      );
      if (truncated?.()) throw new PayloadTooLargeError(`the file is larger than ${maxBytes} bytes`);
      await rename(temporary, this.path(id));
      return { bytes, sha256: hash.digest('hex') };
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  open(id: string): Readable {
    return createReadStream(this.path(id), { highWaterMark: BUFFER_BYTES });
  }

  async exists(id: string): Promise<boolean> {
    return stat(this.path(id)).then(
      () => true,
      () => false,
    );
  }

  async delete(id: string): Promise<void> {
    await rm(this.path(id), { force: true });
  }
}
