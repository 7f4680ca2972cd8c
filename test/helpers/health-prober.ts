import { Worker } from 'node:worker_threads';

/**
 * Asks `GET /health` every `periodMs` from a thread of its own, on a fixed schedule, and
 * times each answer from when it was due. A prober on the server's own event loop (tests run
 * the server in-process) would stop asking while that loop is blocked and so never see the
 * block; this one keeps asking, and every answer delayed by a block counts.
 */
export interface HealthProbe {
  /** Stops asking; the answer times in ms (an answer not back by then counts as its wait so far). */
  stop(): Promise<number[]>;
}

const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, periodMs } = workerData;
const times = [];
const pending = new Set();
let started = 0;
let n = 0;
const tick = () => {
  const due = started + n * periodMs;
  n++;
  const probe = { due };
  pending.add(probe);
  fetch(url).then((r) => r.text()).catch(() => {}).finally(() => {
    pending.delete(probe);
    times.push(performance.now() - due);
  });
  timer = setTimeout(tick, Math.max(0, started + n * periodMs - performance.now()));
};
let timer;
// The first request sets up the thread's HTTP client: not counted.
fetch(url).then((r) => r.text()).catch(() => {}).finally(() => {
  started = performance.now();
  timer = setTimeout(tick, 0);
  parentPort.postMessage('ready');
});
parentPort.on('message', () => {
  clearTimeout(timer);
  const now = performance.now();
  for (const probe of pending) times.push(now - probe.due);
  parentPort.postMessage(times);
});
`;

/** Starts probing; resolves once the prober asks on its schedule. */
export async function probeHealth(baseUrl: string, periodMs = 20): Promise<HealthProbe> {
  const worker = new Worker(PROBER, { eval: true, workerData: { url: `${baseUrl}/health`, periodMs } });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (times: number[]) => {
          void worker.terminate();
          resolve(times);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

/** The `q` quantile (0..1) of `times`. */
export function quantile(times: number[], q: number): number {
  if (times.length === 0) return Number.NaN;
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}
