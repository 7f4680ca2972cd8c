import { readFileSync } from 'node:fs';

const cache = new Map<string, string>();

/**
 * A Python program that runs inside a sandbox, read once from the `.py` file beside the code
 * that injects it (as the kernel's are), so the Python stays a real file that tools can check.
 */
export function pythonFile(url: URL): string {
  let source = cache.get(url.href);
  if (source === undefined) {
    source = readFileSync(url, 'utf8');
    cache.set(url.href, source);
  }
  return source;
}
