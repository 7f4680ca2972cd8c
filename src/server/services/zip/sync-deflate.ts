import { Transform, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';

/**
 * Raw deflate computed on the calling thread, chunk by chunk. Node's zlib streams deflate on
 * the process's shared libuv pool, whose threads run at the server's own priority; a zip
 * thread that lowered its priority would still compete with the server's thread through
 * them. Each chunk is deflated on its own and ends with a sync flush (byte-aligned blocks,
 * none marked final); the stream ends with an empty final block. Concatenated, that is one
 * valid deflate stream (as pigz makes them), only without back-references across chunks.
 */
export class SyncDeflateRaw extends Transform {
  constructor(private readonly options: { level?: number } = {}) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      callback(
        null,
        zlib.deflateRawSync(chunk, { level: this.options.level, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
      );
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(null, zlib.deflateRawSync(Buffer.alloc(0)));
  }
}
