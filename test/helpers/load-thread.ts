import { Worker } from 'node:worker_threads';

/** One kind of request a load thread repeats. */
export interface LoadRequest {
  path: string;
  /** Requests of this kind in flight at once, each sent again as soon as it is answered. */
  concurrency: number;
}

/** What came back for one kind: how many answers, by status, and the body sizes seen. */
export interface LoadResult {
  path: string;
  answers: number;
  statuses: Record<string, number>;
  bodyBytes: number[];
}

const LOADER = `
const { parentPort, workerData } = require('node:worker_threads');
// This thread's own priority (per thread on Linux): reading the answers is the client's work,
// which a remote client does on its own machine, not the server's.
require('node:os').setPriority(19);
const { base, requests, durationMs, headers } = workerData;
const until = Date.now() + durationMs;
const results = requests.map((r) => ({ path: r.path, answers: 0, statuses: {}, bodyBytes: [] }));
const loops = [];
requests.forEach((r, i) => {
  for (let k = 0; k < r.concurrency; k++)
    loops.push((async () => {
      while (Date.now() < until) {
        try {
          const response = await fetch(base + r.path, { headers });
          const bytes = (await response.arrayBuffer()).byteLength;
          const result = results[i];
          result.answers++;
          result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
          if (result.bodyBytes.length < 1000) result.bodyBytes.push(bytes);
        } catch (error) {
          results[i].statuses.error = (results[i].statuses.error ?? 0) + 1;
        }
      }
    })());
});
Promise.all(loops).then(() => parentPort.postMessage(results));
`;

/**
 * Sends `requests` from a thread of its own, at the lowest CPU priority, for `durationMs`
 * (then lets the last ones finish), so that reading big answers costs the server's event loop
 * and CPU as little as it would a remote client's, when the server runs in the test's process.
 */
export function loadFromThread(
  base: string,
  requests: LoadRequest[],
  durationMs: number,
  headers: Record<string, string> = {},
): Promise<LoadResult[]> {
  const worker = new Worker(LOADER, { eval: true, workerData: { base, requests, durationMs, headers } });
  return new Promise((resolve, reject) => {
    worker.once('message', (results: LoadResult[]) => {
      void worker.terminate();
      resolve(results);
    });
    worker.once('error', reject);
  });
}
