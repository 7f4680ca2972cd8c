import { Worker } from 'node:worker_threads';

export interface ClosedLoopResult {
  /** Latency of each successful request, in ms. */
  latenciesMs: number[];
  errors: number;
  firstError: string | undefined;
  elapsedMs: number;
}

/**
 * `concurrency` clients, each sending GET `url` (global fetch, i.e. undici, keep-alive) as
 * soon as its previous answer was read, for `durationMs`. It runs in a worker thread, so the
 * load generator has its own event loop (and core) instead of competing with the server it
 * measures. A request counts when it answered 200 with `expectedItems` items in `data`.
 */
export async function closedLoop(options: {
  url: string;
  concurrency: number;
  durationMs: number;
  expectedItems: number;
}): Promise<ClosedLoopResult> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: options, execArgv: [] });
  try {
    return await new Promise<ClosedLoopResult>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the load worker exited with ${code}`)));
    });
  } finally {
    await worker.terminate();
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, concurrency, durationMs, expectedItems } = workerData;
(async () => {
  const latenciesMs = [];
  let errors = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const response = await fetch(url);
        const body = await response.json();
        if (response.status === 200 && body.data && body.data.length === expectedItems) {
          latenciesMs.push(performance.now() - sent);
        } else {
          errors += 1;
          firstError ??= 'HTTP ' + response.status + ': ' + JSON.stringify(body).slice(0, 200);
        }
      } catch (error) {
        errors += 1;
        firstError ??= String(error);
      }
    }
  }));
  parentPort.postMessage({ latenciesMs, errors, firstError, elapsedMs: performance.now() - started });
})();
`;
