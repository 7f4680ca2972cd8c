import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';

/**
 * The records of a JSON-lines file (gzip-compressed when it ends in `.gz`), each checked
 * against `schema` (lenient: unknown fields pass). A bad line is a clear error naming it.
 */
export async function readJsonLines<S extends z.ZodTypeAny>(path: string, schema: S): Promise<z.infer<S>[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InvalidInputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
    });
  }
  const text = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  const records: z.infer<S>[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InvalidInputError(`${path} line ${i + 1} is not JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidInputError(
        `${path} line ${i + 1}: ${issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'unexpected shape'}`,
      );
    }
    records.push(parsed.data);
  }
  return records;
}
