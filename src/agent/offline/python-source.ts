import { readFileSync } from 'node:fs';

const cache = new Map<string, string>();

/**
 * A Python file of the offline analyst (`python/NAME`), read once. The cells it runs are
 * made of these files and of lines generated for the question; the files are real Python,
 * so they are read, linted and tested as such.
 */
export function pythonSource(name: string): string {
  let source = cache.get(name);
  if (source === undefined) {
    source = readFileSync(new URL(`./python/${name}`, import.meta.url), 'utf8');
    cache.set(name, source);
  }
  return source;
}

/** A Python string literal for any text (JSON's escapes are valid in Python). */
export function py(text: string): string {
  return JSON.stringify(text);
}
