import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../errors/index.ts';
import type { TaskFile } from './suite.ts';

/** The regular files directly in a folder (sorted, hidden ones skipped), as workspace files. */
export async function filesIn(
  dir: string,
  skip: (name: string) => boolean = () => false,
): Promise<TaskFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new InvalidInputError(`cannot read the folder ${dir}`, { param: 'data' });
  }
  const files: TaskFile[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.') || skip(name)) continue;
    const path = join(dir, name);
    if ((await stat(path)).isFile()) files.push({ name, path });
  }
  return files;
}

/** The first of `candidates` that exists, or undefined. */
export async function firstExisting(candidates: readonly string[]): Promise<string | undefined> {
  for (const path of candidates) {
    try {
      await stat(path);
      return path;
    } catch {
      // next
    }
  }
  return undefined;
}

/** The last `Final Answer:` line's text, else the whole reply trimmed (undefined when empty). */
export function finalAnswerLine(reply: string | undefined): string | undefined {
  if (reply === undefined) return undefined;
  const last = [...reply.matchAll(/Final Answer:[ \t]*([^\n]*)/g)].at(-1);
  const text = (last ? last[1]! : reply).trim();
  return text === '' ? undefined : text;
}
