import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RenderedDocuments } from '../documents.ts';
import { ReportRenderError } from '../errors/report-render-error.ts';
import type { RenderJob } from './render-worker.ts';

export interface RenderLimits {
  /** Heap of the rendering thread. Default 256 MiB. */
  memoryMb?: number;
  /** Default 60 s. */
  timeoutMs?: number;
}

/**
 * Render workers alive at once. Each is an isolate of its own (about 30 MB, and its modules
 * loaded anew): 200 chats ending together started 200 of them, 6 GB and every core busy for
 * seconds. The rest wait their turn; a report is written after its answer is sent anyway.
 */
const MAX_WORKERS = Math.max(1, availableParallelism());
let running = 0;
let mostAtOnce = 0;
const waiting: Array<() => void> = [];

/** How many render workers were alive at once at most, and the limit (for tests and status). */
export function renderWorkerCounts(): { limit: number; mostAtOnce: number } {
  return { limit: MAX_WORKERS, mostAtOnce };
}

async function turn(): Promise<() => void> {
  if (running >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  mostAtOnce = Math.max(mostAtOnce, running);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running -= 1;
    waiting.shift()?.();
  };
}

/**
 * Renders documents in a worker thread with its own memory bound, so that neither the work
 * (Markdown of long outputs, base64 of images) nor a document too big to make can stall or
 * kill the server's event loop: a worker that runs out of memory or time is ended and the
 * caller gets ReportRenderError.
 */
export async function renderInWorker(job: RenderJob, limits: RenderLimits = {}): Promise<RenderedDocuments> {
  const release = await turn();
  try {
    return await renderNow(job, limits);
  } finally {
    release();
  }
}

function renderNow(job: RenderJob, limits: RenderLimits): Promise<RenderedDocuments> {
  return new Promise((resolve, reject) => {
    const memoryMb = limits.memoryMb ?? 256;
    const worker = new Worker(new URL('./render-worker.mjs', import.meta.url), {
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32 },
      stdout: false,
      stderr: true,
    });
    let settled = false;
    const settle = (error: Error | undefined, documents?: RenderedDocuments) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error) reject(error);
      else resolve(documents!);
    };
    const timer = setTimeout(
      () =>
        settle(
          new ReportRenderError(
            `the report took longer than ${(limits.timeoutMs ?? 60_000) / 1000} s to make`,
          ),
        ),
      limits.timeoutMs ?? 60_000,
    );
    worker.once('message', (documents: RenderedDocuments) => settle(undefined, documents));
    worker.once('error', (error) =>
      settle(
        new ReportRenderError(
          /ERR_WORKER_OUT_OF_MEMORY/.test(String((error as NodeJS.ErrnoException).code))
            ? `the report needs more than ${memoryMb} MiB to make`
            : `the report could not be made: ${error.message}`,
          { cause: error },
        ),
      ),
    );
    worker.once('exit', (code) =>
      settle(new ReportRenderError(`the report worker stopped (exit code ${code})`)),
    );
  });
}
