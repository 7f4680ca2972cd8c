/** One benchmark line: `{"name", "n", "p50_ms", "p95_ms"}`. */
export interface BenchLine {
  name: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
}

export function summarise(name: string, samplesMs: number[]): BenchLine {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return { name, n: sorted.length, p50_ms: round(median), p95_ms: round(at(0.95)) };
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Times `fn` n times with `gapMs` of idle time before each run. */
export async function sample(n: number, gapMs: number, fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    if (gapMs > 0) await sleep(gapMs);
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return samples;
}
