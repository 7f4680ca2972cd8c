import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { WorkerSlots } from '../../workers/worker-slots.ts';
import type { RenderedDocuments } from '../documents.ts';
import { ReportRenderError } from '../errors/report-render-error.ts';
import type { FromRenderWorker, RenderJob } from './render-worker.ts';

export interface RenderWorkerOptions {
  /** Heap of each rendering thread. Default 256 MiB. */
  memoryMb?: number;
  /** One report's time. Default 60 s. */
  timeoutMs?: number;
  /** Threads at most; reports beyond wait their turn. Default: one per core. */
  workers?: number;
}

/**
 * Renders documents in worker threads with their own memory bound, so that neither the work
 * (Markdown of long outputs, base64 of images) nor a document too big to make can stall or
 * kill the server's event loop: a worker that runs out of memory or time is ended (the next
 * report gets a fresh one) and the caller gets ReportRenderError.
 *
 * The workers live on between reports. Each is an isolate of its own (about 30 MB, its modules
 * loaded anew): one started per report cost 0.7-2.7 s of CPU here, and 200 chats ending
 * together kept both cores busy for two minutes with nothing but starting workers.
 */
export class RenderWorkers {
  readonly slots: WorkerSlots;
  private nextId = 0;

  constructor(private readonly options: RenderWorkerOptions = {}) {
    const memoryMb = options.memoryMb ?? 256;
    this.slots = new WorkerSlots(
      options.workers ?? Math.max(1, availableParallelism()),
      () =>
        new Worker(new URL('./render-worker.mjs', import.meta.url), {
          resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32 },
          stdout: false,
          stderr: true,
        }),
      'report',
    );
  }

  /** `timeoutMs`: this report's time, instead of the workers' default. */
  async render(job: RenderJob, timeoutMs = this.options.timeoutMs ?? 60_000): Promise<RenderedDocuments> {
    const slot = await this.slots.acquire();
    const id = this.nextId++;
    const memoryMb = this.options.memoryMb ?? 256;
    return new Promise<RenderedDocuments>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | undefined, documents?: RenderedDocuments, keep = true) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
        if (keep) this.slots.release(slot);
        else this.slots.discard(slot);
        if (error) reject(error);
        else resolve(documents!);
      };
      const timer = setTimeout(
        () =>
          finish(
            new ReportRenderError(`the report took longer than ${timeoutMs / 1000} s to make`),
            undefined,
            false,
          ),
        timeoutMs,
      );
      const onMessage = (message: FromRenderWorker) => {
        if (message.id !== id) return;
        if ('documents' in message) finish(undefined, message.documents);
        else finish(new ReportRenderError(`the report could not be made: ${message.error}`));
      };
      const onError = (error: Error) =>
        finish(
          new ReportRenderError(
            /ERR_WORKER_OUT_OF_MEMORY/.test(String((error as NodeJS.ErrnoException).code))
              ? `the report needs more than ${memoryMb} MiB to make`
              : `the report could not be made: ${error.message}`,
            { cause: error },
          ),
          undefined,
          false,
        );
      const onExit = (code: number) =>
        finish(new ReportRenderError(`the report worker stopped (exit code ${code})`), undefined, false);
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      // Cloned, not transferred: the caller may render the same files again (images linked).
      slot.worker.postMessage({ id, job });
    });
  }

  close(): Promise<void> {
    return this.slots.close();
  }
}

/** The process's render workers: every report of every service in it shares them. */
const shared = new RenderWorkers();

export function renderInWorker(job: RenderJob): Promise<RenderedDocuments> {
  return shared.render(job);
}

/** How many render workers were alive at once at most, and the limit (for tests and status). */
export function renderWorkerCounts(): { limit: number; mostAtOnce: number; started: number } {
  const { limit, mostAtOnce, started } = shared.slots;
  return { limit, mostAtOnce, started };
}
