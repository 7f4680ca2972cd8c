import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The kernel's files, joined in this order into one program for `python3 -c`. Each file
 * uses names the earlier ones define; they are separate only to keep each one readable.
 */
const KERNEL_FILES = [
  'protocol.py',
  'hygiene.py',
  'artifacts.py',
  'charts.py',
  'cell.py',
  'zygote.py',
  'storage.py',
  'worker.py',
  'kernel.py',
];

let cached: { source: string; hash: string } | undefined;

/** The kernel program injected into every sandbox at start (never baked into an image). */
export function kernelSource(): { source: string; hash: string } {
  if (!cached) {
    const source = KERNEL_FILES.map((name) =>
      readFileSync(new URL(`./kernel/${name}`, import.meta.url), 'utf8'),
    ).join('\n\n');
    cached = { source, hash: createHash('sha256').update(source).digest('hex').slice(0, 16) };
  }
  return cached;
}
