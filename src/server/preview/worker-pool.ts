import type { Worker } from 'node:worker_threads';
import { InvalidInputError } from '../../errors/index.ts';
import { WorkerSlots } from '../../workers/worker-slots.ts';
import type { FileSource } from './preview.ts';
import {
  type FromWorker,
  MAX_RANGE_BYTES,
  type PreviewJob,
  type PreviewJobResult,
  type ToWorker,
} from './worker-protocol.ts';

export interface PreviewWorkerOptions {
  /** Heap of each worker. Default 256 MiB. */
  memoryMb?: number;
  /** One job's time. Default 15 s. */
  timeoutMs?: number;
  /** Workers at most (jobs beyond wait). Default 2. */
  workers?: number;
}

/**
 * Parses binary files (xlsx, Parquet, SQLite, JSON) in worker threads, so that a hostile
 * file (a zip bomb, a pathological schema, a huge document) costs a bounded heap and a
 * bounded time and never stalls the server: a worker over its time is terminated and a
 * fresh one takes the next job. The worker reads the file's bytes by range, answered here
 * from the Workspace file: nothing reads the workspace but the main thread's Workspace.
 */
export class PreviewWorkers {
  private readonly slots: WorkerSlots;

  constructor(private readonly options: PreviewWorkerOptions = {}) {
    this.slots = new WorkerSlots({
      limit: options.workers ?? 2,
      script: new URL('./preview-worker.mjs', import.meta.url),
      memoryMb: options.memoryMb ?? 256,
      name: 'preview',
    });
  }

  run(job: PreviewJob, file: FileSource | undefined): Promise<PreviewJobResult> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const memoryMb = this.options.memoryMb ?? 256;
    const unreadable = (reason: string) =>
      new InvalidInputError(`the file ${reason}; it cannot be previewed`, { param: 'path' });
    return this.slots.job<PreviewJobResult, FromWorker>({
      timeoutMs,
      post: (worker, id) => worker.postMessage({ type: 'job', id, job } satisfies ToWorker),
      read: (message, worker) => {
        if (message.type === 'done') return { result: message.result };
        if (message.type === 'failed')
          return {
            error: new InvalidInputError(`the file cannot be previewed: ${message.message}`, {
              param: 'path',
            }),
          };
        void this.answerRead(worker, file, message);
        return undefined;
      },
      timedOut: () => unreadable(`took longer than ${timeoutMs / 1000} s to read`),
      crashed: (error, outOfMemory) =>
        outOfMemory
          ? unreadable(`needs more than ${memoryMb} MiB to read`)
          : new InvalidInputError(`the file cannot be previewed: ${error.message}`, { param: 'path' }),
      exited: () => new Error('the preview worker stopped'),
    });
  }

  close(): Promise<void> {
    return this.slots.close();
  }

  private async answerRead(
    worker: Worker,
    file: FileSource | undefined,
    request: Extract<FromWorker, { type: 'read' }>,
  ): Promise<void> {
    const reply = (message: Omit<Extract<ToWorker, { type: 'data' }>, 'type' | 'id' | 'readId'>) => {
      const data = message.data;
      worker.postMessage(
        { type: 'data', id: request.id, readId: request.readId, ...message } satisfies ToWorker,
        data ? [data.buffer as ArrayBuffer] : [],
      );
    };
    try {
      const { start, end } = request;
      if (!file || start < 0 || end > file.bytes || end < start || end - start > MAX_RANGE_BYTES)
        throw new Error(`bad range ${start}-${end}`);
      const out = new Uint8Array(end - start);
      let at = 0;
      if (end > start) {
        for await (const bytes of file.range(start, end)) {
          out.set(bytes.subarray(0, out.length - at), at);
          at += bytes.length;
        }
      }
      reply({ data: out });
    } catch (error) {
      reply({ error: (error as Error).message });
    }
  }
}
