import type { Writable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { WorkerSlots } from '../../../workers/worker-slots.ts';
import type { WorkspaceFile } from '../../../workspace/workspace.ts';
import type { FromZipThread, ToZipThread, ZipEntry } from './zip-protocol.ts';

export interface ZipThreadsOptions {
  /** Threads at most: one per export running at once. */
  threads: number;
  /** Each thread's heap. Default 128 MiB. */
  memoryMb?: number;
  /** A thread idle this long ends, giving its memory back. Default 30 s. */
  idleExitMs?: number;
  /** One export's time at most, however fast its client reads. Default 12 h. */
  maxExportMs?: number;
}

/** One archive to make: its entries, how to open each, and where its bytes go. */
export interface ZipJob {
  entries: ZipEntry[];
  /** Opens entry `index`'s file; its `descriptor` is what the thread reads. */
  open: (index: number) => Promise<WorkspaceFile>;
  /** The archive's bytes; destroying it stops the export. */
  out: Writable;
  /** Bytes read from files, as the thread reports them. */
  onRead: (bytes: number) => void;
  /** `out` took a chunk (its reader keeps up). */
  onTaken: () => void;
}

/**
 * Makes ZIP archives on worker threads (`zip-thread.ts`), so that deflate, CRC-32 and the
 * archive's buffers never take the server's thread: it only opens files in the workspace,
 * hands their descriptors over and writes the chunks it is sent to the client, at most
 * `ZIP_CHUNKS_IN_FLIGHT` ahead of what the client took. A descriptor is closed here once
 * the thread says no read of it is in flight, so a closed number is never read again.
 */
export class ZipThreads {
  readonly slots: WorkerSlots;

  constructor(private readonly options: ZipThreadsOptions) {
    this.slots = new WorkerSlots({
      limit: options.threads,
      script: new URL('./zip-thread.mjs', import.meta.url),
      memoryMb: options.memoryMb ?? 128,
      idleExitMs: options.idleExitMs ?? 30_000,
      name: 'zip',
    });
  }

  /**
   * Streams the archive into `job.out` and ends it; resolves once the thread is free again.
   * A failure destroys `out` with the error; `out` destroyed by its reader stops the thread.
   */
  async archive(job: ZipJob): Promise<void> {
    const files = new Map<number, WorkspaceFile>();
    let settled = false;
    let thread: { worker: Worker; id: number } | undefined;
    const post = (message: ToZipThread) => thread?.worker.postMessage(message);
    const stop = () => {
      if (!settled && thread) post({ id: thread.id, stop: true });
    };
    job.out.once('close', stop);
    const close = (index: number) => {
      const file = files.get(index);
      files.delete(index);
      void file?.close();
    };
    const open = (id: number, index: number) => {
      job.open(index).then(
        (file) => {
          if (settled) return void file.close();
          files.set(index, file);
          if (file.descriptor === undefined) {
            post({
              id,
              openFailed: index,
              message: `${file.path} is not a local file: it cannot be exported`,
            });
          } else post({ id, opened: index, fd: file.descriptor });
        },
        (error: Error) => post({ id, openFailed: index, message: error.message }),
      );
    };
    try {
      await this.slots.job<undefined, FromZipThread>({
        timeoutMs: this.options.maxExportMs ?? 12 * 3_600_000,
        post: (worker, id) => {
          thread = { worker, id };
          post({ id, start: job.out.destroyed ? [] : job.entries });
        },
        read: (message) => {
          const id = message.id;
          if ('read' in message && message.read > 0) job.onRead(message.read);
          if ('open' in message) open(id, message.open);
          else if ('closed' in message) close(message.closed);
          else if ('bytes' in message) {
            if (job.out.destroyed) return undefined;
            const ack = () => {
              job.onTaken();
              post({ id, ack: true });
            };
            if (job.out.write(message.bytes)) ack();
            else job.out.once('drain', ack);
          } else if ('done' in message) {
            if (!job.out.destroyed) job.out.end();
            return { result: undefined };
          } else if ('failed' in message) {
            job.out.destroy(new Error(message.failed));
            return { result: undefined };
          } else if ('stopped' in message) return { result: undefined };
          return undefined;
        },
        timedOut: () => new Error('the export took longer than it may'),
        crashed: (error, outOfMemory) =>
          new Error(outOfMemory ? 'the export ran out of memory' : `the export failed: ${error.message}`),
        exited: (code) => new Error(`the export's thread stopped (exit code ${code})`),
      });
    } catch (error) {
      job.out.destroy(error as Error);
    } finally {
      settled = true;
      job.out.off('close', stop);
      for (const index of [...files.keys()]) close(index);
    }
  }

  close(): Promise<void> {
    return this.slots.close();
  }
}
