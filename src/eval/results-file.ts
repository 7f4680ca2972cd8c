import { open, readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { TaskStatus } from './suite.ts';

/** One line of results.jsonl (a public shape: other tools read it). Suites may add fields. */
export interface TaskResult {
  id: string;
  group: string;
  status: TaskStatus;
  reason: string;
  duration_ms: number;
  /** Tokens the agent used (0 when answers came from a file). */
  tokens?: number;
  [field: string]: unknown;
}

const TaskResultSchema = z
  .object({
    id: z.string(),
    group: z.string(),
    status: z.enum(['passed', 'failed', 'blocked', 'error']),
    reason: z.string(),
    duration_ms: z.number(),
  })
  .passthrough();

/**
 * results.jsonl, appended one line per finished task and flushed to disk before the next
 * line, so a run killed at any moment keeps every task it finished (at worst the last line
 * is cut, and a resumed run drops and redoes it).
 */
export class ResultsFile {
  private constructor(private readonly handle: Awaited<ReturnType<typeof open>>) {}

  static async open(path: string): Promise<ResultsFile> {
    const handle = await open(path, 'a');
    const file = new ResultsFile(handle);
    // A line cut by a kill must not glue itself to the next one.
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      const reader = await open(path, 'r');
      try {
        await reader.read(last, 0, 1, size - 1);
      } finally {
        await reader.close();
      }
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    return file;
  }

  async append(result: TaskResult): Promise<void> {
    await this.handle.write(`${JSON.stringify(result)}\n`);
    await this.handle.datasync();
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** The results already in a results.jsonl (for --resume), by id; unreadable lines are skipped. */
export async function readResults(path: string): Promise<Map<string, TaskResult>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  const results = new Map<string, TaskResult>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // the line a kill cut short: that task runs again
    }
    const parsed = TaskResultSchema.safeParse(value);
    if (parsed.success) results.set(parsed.data.id, parsed.data as TaskResult);
  }
  return results;
}
