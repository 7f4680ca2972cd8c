import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A file name for a task id: the id itself when it is plain, else a readable form plus a hash. */
export function traceName(id: string): string {
  const plain = id.replace(/[^A-Za-z0-9._-]/g, '_');
  if (plain === id && !id.startsWith('.')) return `${id}.json`;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${plain.replace(/^\.+/, '_').slice(0, 80)}-${hash}.json`;
}

/**
 * One task's trace: the prompt, every agent event, the answer, the score and why. Written
 * before the task's results.jsonl line, so a result always has its trace.
 */
export async function writeTrace(dir: string, id: string, trace: Record<string, unknown>): Promise<string> {
  const name = traceName(id);
  await writeFile(join(dir, name), `${JSON.stringify(trace, null, 1)}\n`);
  return name;
}
