import { Worker } from 'node:worker_threads';
import { InvalidInputError } from '../../errors/index.ts';
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

interface Slot {
  worker: Worker;
  busy: boolean;
}

/**
 * Parses binary files (xlsx, Parquet, SQLite, JSON) in worker threads, so that a hostile
 * file (a zip bomb, a pathological schema, a huge document) costs a bounded heap and a
 * bounded time and never stalls the server: a worker over its time is terminated and a
 * fresh one takes the next job. The worker reads the file's bytes by range, answered here
 * from the Workspace file: nothing reads the workspace but the main thread's Workspace.
 */
export class PreviewWorkers {
  private readonly slots: Slot[] = [];
  private readonly waiting: Array<() => void> = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: PreviewWorkerOptions = {}) {}

  async run(job: PreviewJob, file: FileSource | undefined): Promise<PreviewJobResult> {
    const slot = await this.acquire();
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
        if (keep) this.release(slot);
        else this.discard(slot);
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

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
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

  private acquire(): Promise<Slot> {
    if (this.closed) return Promise.reject(new Error('the preview workers are closed'));
    const idle = this.slots.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.slots.length < (this.options.workers ?? 2)) {
      const slot: Slot = { worker: this.spawn(), busy: true };
      this.slots.push(slot);
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.acquire())));
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./preview-worker.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb ?? 256, maxYoungGenerationSizeMb: 32 },
      stdout: false,
      stderr: true,
    });
    worker.unref();
    // Errors of a job are handled by its listeners; a worker that dies between jobs leaves.
    worker.on('error', () => {});
    worker.on('exit', () => {
      const at = this.slots.findIndex((s) => s.worker === worker);
      if (at !== -1 && !this.slots[at]!.busy) this.slots.splice(at, 1);
    });
    return worker;
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.waiting.shift()?.();
  }

  private discard(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    void slot.worker.terminate();
    this.waiting.shift()?.();
  }
}
