#!/usr/bin/env node
import { once } from 'node:events';
// Writes a seeded sales CSV of about the size asked for: the large-file example (not committed:
// a file this size does not belong in git). The same seed and size give the same bytes.
//
//   node examples/large-sales/generate.mjs [path] [megabytes] [seed]
//   node examples/large-sales/generate.mjs examples/large-sales/sales.csv 300
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REGIONS = ['North', 'South', 'East', 'West', 'Central'];
export const HEADER = 'order_id,date,region,store,product,qty,price';

/** mulberry32: a small seeded generator, so the file is the same on every machine. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes the CSV to `path` until it holds at least `bytes` bytes; resolves to its row count
 * and size. Rows: order_id, date (2021–2024), region (5), store (200), product (1,000),
 * qty (1–20), price (0.50–500.00, two decimals).
 */
export async function generateSales({ path, bytes, seed = 42 }) {
  const next = random(seed);
  const out = createWriteStream(path);
  let written = 0;
  let rows = 0;
  const write = async (text) => {
    written += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${HEADER}\n`);
  const day0 = Date.UTC(2021, 0, 1);
  while (written < bytes) {
    let chunk = '';
    for (let i = 0; i < 10_000; i++) {
      rows++;
      const date = new Date(day0 + Math.floor(next() * 1461) * 86_400_000).toISOString().slice(0, 10);
      const region = REGIONS[Math.floor(next() * REGIONS.length)];
      const store = `S${String(1 + Math.floor(next() * 200)).padStart(3, '0')}`;
      const product = `P${String(1 + Math.floor(next() * 1000)).padStart(4, '0')}`;
      const qty = 1 + Math.floor(next() * 20);
      const price = (50 + Math.floor(next() * 49_951)) / 100;
      chunk += `${rows},${date},${region},${store},${product},${qty},${price.toFixed(2)}\n`;
    }
    await write(chunk);
  }
  out.end();
  await once(out, 'finish');
  return { rows, bytes: written };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = process.argv[2] ?? 'sales.csv';
  const megabytes = Number(process.argv[3] ?? 300);
  const seed = Number(process.argv[4] ?? 42);
  if (!Number.isFinite(megabytes) || megabytes <= 0) {
    console.error('usage: generate.mjs [path] [megabytes > 0] [seed]');
    process.exit(2);
  }
  const { rows, bytes } = await generateSales({ path, bytes: megabytes * 1024 * 1024, seed });
  console.log(`${path}: ${rows} rows, ${(bytes / 2 ** 20).toFixed(1)} MB`);
}
