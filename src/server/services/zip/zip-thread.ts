import { createReadStream, type ReadStream } from 'node:fs';
import { setPriority } from 'node:os';
import { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import zlib from 'node:zlib';
import { ZipFile } from 'yazl';
import { SyncDeflateRaw } from './sync-deflate.ts';
import { type FromZipThread, type ToZipThread, ZIP_CHUNKS_IN_FLIGHT, type ZipEntry } from './zip-protocol.ts';

if (!parentPort) throw new Error('zip-thread.ts runs as a worker thread');
const port = parentPort;

// Background work: on Linux a priority set from a thread is that thread's alone, so the
// server's thread keeps the CPU it needs to answer while archives are made.
setPriority(10);
// yazl deflates with `new zlib.DeflateRaw`; this isolate's zlib (its own module instance)
// deflates on this thread instead of the shared libuv pool (see SyncDeflateRaw).
(zlib as unknown as { DeflateRaw: unknown }).DeflateRaw = SyncDeflateRaw;

/** Bytes read from a file at a time: deflated as one piece. */
const READ_CHUNK_BYTES = 256 * 1024;

/**
 * One export at a time: the archive's deflate, its CRC-32s and its buffers live on this thread,
 * not the server's (docs/performance.md#exports-off-the-main-thread). Files are read through
 * descriptors the server's thread opened in the workspace, so a path a cell swaps meanwhile
 * is never followed here; the server's thread closes them once this thread says it is done.
 */
class Export {
  private readonly zip = new ZipFile();
  private readonly opening = new Map<number, (error: Error | null, fd?: number) => void>();
  private readonly reading = new Set<ReadStream>();
  private inFlight = 0;
  private read = 0;
  private ended = false;

  constructor(
    readonly id: number,
    entries: ZipEntry[],
  ) {
    this.zip.on('error', (error: Error) => this.fail(error));
    entries.forEach((entry, index) => {
      this.zip.addReadStreamLazy(
        entry.path,
        {
          mtime: new Date(entry.mtimeMs),
          mode: 0o100644,
          // Deflate's fastest level: the host's CPU is shared with every other request, a
          // download's bytes are not (docs/performance.md#export-deflate-level).
          compressionLevel: entry.compress ? 1 : 0,
          // A file that shrank meanwhile fails the archive (the client sees a cut download)
          // rather than a silently wrong entry; one that grew is read only up to this size.
          size: entry.size,
        },
        (callback) => {
          this.opening.set(index, (error, fd) => {
            if (error || fd === undefined)
              return callback(error ?? new Error('no descriptor'), undefined as never);
            if (entry.size === 0) {
              this.send({ id: this.id, closed: index, read: this.take() });
              return callback(null, Readable.from([]));
            }
            // The server's thread owns the descriptor: this stream never closes it.
            const stream = createReadStream('', {
              fd,
              start: 0,
              end: entry.size - 1,
              autoClose: false,
              highWaterMark: READ_CHUNK_BYTES,
            });
            this.reading.add(stream);
            stream.on('data', (chunk) => {
              this.read += chunk.length;
            });
            // yazl pipes the stream without listening for its errors: an unread file ends the archive.
            stream.on('error', (error) => this.fail(error));
            stream.on('close', () => {
              this.reading.delete(stream);
              this.send({ id: this.id, closed: index, read: this.take() });
            });
            callback(null, stream);
          });
          this.send({ id: this.id, open: index });
        },
      );
    });
    this.zip.end();
    const output = this.zip.outputStream;
    output.on('data', (chunk: Buffer) => {
      // A fresh copy the thread can transfer: yazl's chunks may share a pooled buffer.
      const bytes = new Uint8Array(chunk.length);
      bytes.set(chunk);
      this.inFlight += 1;
      if (this.inFlight >= ZIP_CHUNKS_IN_FLIGHT) output.pause();
      port.postMessage({ id: this.id, bytes, read: this.take() } satisfies FromZipThread, [bytes.buffer]);
    });
    output.on('end', () => this.finish({ id: this.id, done: true, read: 0 }));
    output.on('error', (error) => this.fail(error));
  }

  opened(index: number, fd: number): void {
    const resolve = this.opening.get(index);
    this.opening.delete(index);
    resolve?.(null, fd);
  }

  openFailed(index: number, message: string): void {
    const resolve = this.opening.get(index);
    this.opening.delete(index);
    resolve?.(new Error(message));
  }

  ack(): void {
    this.inFlight -= 1;
    if (this.inFlight < ZIP_CHUNKS_IN_FLIGHT && !this.ended) this.zip.outputStream.resume();
  }

  /** Ends every read; `stopped` goes once none is in flight, so no descriptor is read after. */
  async stop(): Promise<void> {
    await this.quiesce();
    this.finish({ id: this.id, stopped: true, read: 0 });
  }

  private async quiesce(): Promise<void> {
    this.zip.outputStream.pause();
    const streams = [...this.reading];
    for (const stream of streams) stream.destroy();
    await Promise.all(
      streams.map((s) =>
        s.closed ? undefined : new Promise<void>((closed) => s.once('close', () => closed())),
      ),
    );
  }

  private fail(error: Error): void {
    if (this.ended) return;
    void this.quiesce().then(() => this.finish({ id: this.id, failed: error.message, read: 0 }));
  }

  private finish(message: FromZipThread & { read: number }): void {
    if (this.ended) return;
    this.ended = true;
    current = undefined;
    this.send({ ...message, read: this.take() });
  }

  private take(): number {
    const read = this.read;
    this.read = 0;
    return read;
  }

  private send(message: FromZipThread): void {
    port.postMessage(message);
  }
}

let current: Export | undefined;

port.on('message', (message: ToZipThread) => {
  if ('start' in message) {
    current = new Export(message.id, message.start);
    return;
  }
  const job = current;
  if (job?.id !== message.id) return;
  if ('opened' in message) job.opened(message.opened, message.fd);
  else if ('openFailed' in message) job.openFailed(message.openFailed, message.message);
  else if ('ack' in message) job.ack();
  else if ('stop' in message) void job.stop();
});
