import { answerNumbers } from '../src/agent/grounding/answer-numbers.ts';
import { groundAnswer } from '../src/agent/grounding/ground.ts';
import { scanNumbers } from '../src/agent/grounding/scan.ts';
import type { Evidence } from '../src/agent/grounding/types.ts';
import { round, summarise } from './stats.ts';

/**
 * Grounding's cost and its blind spot, with no sandbox (it is a pure function):
 * - speed: an answer with 200 numbers (quoted, rounded, derived, invented; in prose and in a
 *   table) against 40 KB of printed output, the size of a cell's output cap. The peer, in the
 *   same run, is the obvious implementation of the same check: every claim compared with
 *   every printed number, every pair of printed numbers tried for a derived claim.
 * - coincidence: how often an invented number, of 1 to 5 significant digits, happens to equal
 *   (within its rounding) something in those 40 KB or be derivable from what the answer quotes.
 */

const N = Number(process.env.ANALYST_BENCH_N ?? 40);

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ten cells printing describe()-like tables, 40 KB in all. */
function evidence(): Evidence {
  const next = random(1);
  const texts: Evidence['texts'] = [];
  let total = 0;
  for (let cell = 1; total < 40_000; cell++) {
    const lines = [`          ${['count', 'mean', 'std', 'min', 'max'].map((h) => h.padStart(12)).join('')}`];
    for (let row = 0; row < 40 && total + lines.join('\n').length < 4_000 * cell; row++) {
      const scale = 10 ** Math.floor(next() * 6 - 2);
      const values = [Math.floor(next() * 5000), ...Array.from({ length: 4 }, () => next() * scale)];
      lines.push(
        `col_${row}`.padEnd(10) +
          values.map((v, i) => (i === 0 ? String(v) : v.toFixed(4)).padStart(12)).join(''),
      );
    }
    const text = lines.join('\n');
    total += text.length;
    texts.push({ cellId: `cell-${cell}`, kind: 'output', text });
  }
  return { texts, rows: [] };
}

/** About 200 numbers: quoted (some rounded), derived from quoted pairs (sums, shares), invented. */
function answer(from: Evidence): string {
  const next = random(2);
  const printed = from.texts.flatMap((t) => scanNumbers(t.text).map((n) => n.value)).filter((v) => v > 0.5);
  const pick = () => printed[Math.floor(next() * printed.length)]!;
  const parts: string[] = ['## Findings', ''];
  const table = ['| metric | value | share |', '| --- | --- | --- |'];
  for (let i = 0; i < 29; i++) {
    const a = pick();
    const b = pick();
    parts.push(
      `- metric ${String.fromCharCode(97 + (i % 26))}: ${a.toFixed(4)} (about ${a.toPrecision(3)}), against ${b.toFixed(4)}.`,
    );
    table.push(
      `| m${i} | ${(a + b).toFixed(2)} | ${((100 * Math.min(a, b)) / Math.max(a, b)).toFixed(1)}% |`,
    );
    parts.push(
      `  An invented figure: ${(next() * 900 + 100).toFixed(3)}, and another: ${(next() * 90).toFixed(2)}%.`,
    );
  }
  return [...parts, '', ...table].join('\n');
}

/** The obvious implementation, for comparison: linear scans and all pairs, no index. */
function naive(text: string, from: Evidence): number {
  const printed = from.texts.flatMap((t) => scanNumbers(t.text).map((n) => Math.abs(n.value)));
  const claims = answerNumbers(text).filter((n) => !n.role);
  const quoted: number[] = [];
  let found = 0;
  for (const claim of claims) {
    const hit = printed.find((v) => v >= claim.lo && v <= claim.hi);
    if (hit !== undefined) {
      quoted.push(hit);
      found += 1;
    }
  }
  for (const claim of claims) {
    search: for (const a of quoted)
      for (const b of quoted) {
        for (const v of [a + b, a - b, a / b, (100 * a) / b, (100 * (a - b)) / b, 100 * (a - b)])
          if (Math.abs(v) >= claim.lo && Math.abs(v) <= claim.hi) {
            found += 1;
            break search;
          }
      }
  }
  return found;
}

export async function runGroundingBench(): Promise<void> {
  const from = evidence();
  const text = answer(from);
  const claims = answerNumbers(text).filter((n) => !n.role).length;
  const bytes = from.texts.reduce((sum, t) => sum + t.text.length, 0);
  const run = (fn: () => unknown) => {
    const samples: number[] = [];
    for (let i = 0; i < N + 3; i++) {
      const started = performance.now();
      fn();
      if (i >= 3) samples.push(performance.now() - started);
    }
    return samples;
  };
  const ours: number[] = [];
  const peer: number[] = [];
  // Interleaved, so that both see the same machine.
  for (let i = 0; i < 4; i++) {
    ours.push(...run(() => groundAnswer({ answer: text, question: '', evidence: from })));
    peer.push(...run(() => naive(text, from)));
  }
  const grounding = summarise('grounding-200-numbers-40kb', ours);
  const obvious = summarise('peer-linear-scan-and-all-pairs', peer);
  const statuses: Record<string, number> = {};
  for (const n of groundAnswer({ answer: text, question: '', evidence: from }))
    statuses[n.status] = (statuses[n.status] ?? 0) + 1;
  process.stdout.write(`${JSON.stringify({ ...grounding, claims, output_bytes: bytes, statuses })}\n`);
  process.stdout.write(
    `${JSON.stringify({ ...obvious, ratio: round(grounding.p50_ms / obvious.p50_ms) })}\n`,
  );

  // Coincidence: invented numbers that pass as grounded or derived, by significant digits.
  const next = random(3);
  // What an answer quotes gives derived claims their operands: a realistic share of them.
  const quoted = text
    .split('\n')
    .filter((line) => !line.includes('invented'))
    .slice(0, 40)
    .join('\n');
  for (let digits = 1; digits <= 5; digits++) {
    let passed = 0;
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      // Half plain numbers from 0.1 to 10,000, half percentages from 1% to 100%.
      const percent = next() < 0.5;
      const magnitude = 10 ** Math.floor(percent ? next() * 2 : next() * 5 - 1);
      const value = (next() * 9 * magnitude + magnitude).toPrecision(digits);
      const written = percent ? `${value}%` : value;
      const numbers = groundAnswer({
        answer: `${quoted}\nInvented: ${written}.`,
        question: '',
        evidence: from,
      });
      const last = numbers.at(-1)!;
      if (last.status === 'grounded' || last.status === 'derived') passed += 1;
    }
    process.stdout.write(
      `${JSON.stringify({ name: `coincidence-${digits}-significant-digits`, n: trials, passed_rate: round(passed / trials) })}\n`,
    );
  }
}
