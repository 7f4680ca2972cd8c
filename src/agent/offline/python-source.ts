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

/**
 * A Python string literal for any text (JSON's escapes are valid in Python). Text with double
 * quotes and nothing else to escape is single-quoted, as a person writes it:
 * `'SELECT * FROM "orders"'`, not `"SELECT * FROM \"orders\""`.
 */
export function py(text: string): string {
  if (text.includes('"') && !/['\\\u0000-\u001f\u2028\u2029]/.test(text)) return `'${text}'`;
  return JSON.stringify(text);
}
