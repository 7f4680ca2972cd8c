import { availableParallelism } from 'node:os';
import { WorkerSlots } from '../../workers/worker-slots.ts';
import type { RenderedDocuments } from '../documents.ts';
import { ReportRenderError } from '../errors/report-render-error.ts';
import type { FromRenderWorker, RenderJob, ToRenderWorker } from './render-worker.ts';

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
 * The workers live on between reports. Each is an isolate of its own, its modules loaded
 * anew: one started per report made a burst of chats ending together keep the cores busy
 * with nothing but starting workers (docs/performance.md#render-workers).
 */
export class RenderWorkers {
  readonly slots: WorkerSlots;

  private readonly memoryMb: number;

  constructor(private readonly options: RenderWorkerOptions = {}) {
    this.memoryMb = options.memoryMb ?? 256;
    this.slots = new WorkerSlots({
      limit: options.workers ?? Math.max(1, availableParallelism()),
      script: new URL('./render-worker.mjs', import.meta.url),
      memoryMb: this.memoryMb,
      name: 'report',
    });
  }

  /** `timeoutMs`: this report's time, instead of the workers' default. */
  render(job: RenderJob, timeoutMs = this.options.timeoutMs ?? 60_000): Promise<RenderedDocuments> {
    return this.slots.job<RenderedDocuments, FromRenderWorker>({
      timeoutMs,
      // Cloned, not transferred: the caller may render the same files again (images linked).
      post: (worker, id) => worker.postMessage({ id, job } satisfies ToRenderWorker),
      read: (message) =>
        'documents' in message
          ? { result: message.documents }
          : { error: new ReportRenderError(`the report could not be made: ${message.error}`) },
      timedOut: () => new ReportRenderError(`the report took longer than ${timeoutMs / 1000} s to make`),
      crashed: (error, outOfMemory) =>
        new ReportRenderError(
          outOfMemory
            ? `the report needs more than ${this.memoryMb} MiB to make`
            : `the report could not be made: ${error.message}`,
          { cause: error },
        ),
      exited: (code) => new ReportRenderError(`the report worker stopped (exit code ${code})`),
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
