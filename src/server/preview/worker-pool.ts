import { Worker } from 'node:worker_threads';
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
  private nextId = 0;

  constructor(private readonly options: PreviewWorkerOptions = {}) {
    const memoryMb = options.memoryMb ?? 256;
    this.slots = new WorkerSlots(
      options.workers ?? 2,
      () =>
        new Worker(new URL('./preview-worker.mjs', import.meta.url), {
          resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32 },
          stdout: false,
          stderr: true,
        }),
      'preview',
    );
  }

  async run(job: PreviewJob, file: FileSource | undefined): Promise<PreviewJobResult> {
    const slot = await this.slots.acquire();
    const id = this.nextId++;
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const memoryMb = this.options.memoryMb ?? 256;
    return new Promise<PreviewJobResult>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | undefined, result?: PreviewJobResult, keep = true) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
        if (keep) this.slots.release(slot);
        else this.slots.discard(slot);
        if (error) reject(error);
        else resolve(result!);
      };
      const timer = setTimeout(
        () =>
          finish(
            new InvalidInputError(
              `the file took longer than ${timeoutMs / 1000} s to read; it cannot be previewed`,
            ),
            undefined,
            false,
          ),
        timeoutMs,
      );
      const onMessage = (message: FromWorker) => {
        if (message.id !== id) return;
        if (message.type === 'done') finish(undefined, message.result);
        else if (message.type === 'failed')
          finish(
            new InvalidInputError(`the file cannot be previewed: ${message.message}`, { param: 'path' }),
          );
        else void this.answerRead(slot.worker, file, message);
      };
      const onError = (error: Error) => {
        const memory = /ERR_WORKER_OUT_OF_MEMORY/.test(String((error as NodeJS.ErrnoException).code));
        finish(
          new InvalidInputError(
            memory
              ? `the file needs more than ${memoryMb} MiB to read; it cannot be previewed`
              : `the file cannot be previewed: ${error.message}`,
            { param: 'path' },
          ),
          undefined,
          false,
        );
      };
      const onExit = () => finish(new Error('the preview worker stopped'), undefined, false);
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      slot.worker.postMessage({ type: 'job', id, job } satisfies ToWorker);
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
