import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import { filesIn, firstExisting } from '../context-files.ts';
import { readJsonLines } from '../jsonl.ts';
import type { EvalTask, TaskFile } from '../suite.ts';

const TaskSchema = z
  .object({
    task_id: z.union([z.string(), z.number()]).transform(String),
    question: z.string(),
    level: z.union([z.string(), z.number()]).transform(String).default(''),
    answer: z.union([z.string(), z.number(), z.null()]).optional(),
    guidelines: z.string().default(''),
  })
  .passthrough();

export interface DabstepTask extends EvalTask {
  question: string;
  guidelines: string;
  /** Absent for the hidden test set (the leaderboard scores those). */
  answer?: string;
  files: TaskFile[];
}

const TASK_FILES = ['tasks.jsonl', 'dev.jsonl', 'tasks/dev.jsonl', 'all.jsonl', 'tasks/all.jsonl'];

/**
 * DABStep tasks and their context files. `--data` is a folder laid out like the official
 * data set (a tasks file — tasks.jsonl, dev.jsonl, tasks/dev.jsonl or tasks/all.jsonl — and
 * the context files in context/), or a tasks file whose folder has context/.
 */
export async function loadDabstep(path: string): Promise<DabstepTask[]> {
  let tasksFile: string | undefined;
  let root: string;
  try {
    if ((await stat(path)).isDirectory()) {
      root = path;
      tasksFile = await firstExisting(TASK_FILES.map((f) => join(path, f)));
    } else {
      root = dirname(path);
      tasksFile = path;
    }
  } catch {
    throw new InvalidInputError(`no such file or folder: ${path}`, { param: 'data' });
  }
  if (!tasksFile)
    throw new InvalidInputError(`${path} has no DABStep tasks file (looked for ${TASK_FILES.join(', ')})`, {
      param: 'data',
    });
  const contextDir = await firstExisting([join(root, 'context')]);
  const taskNames = new Set(TASK_FILES.map((f) => basename(f)));
  const files = contextDir ? await filesIn(contextDir) : await filesIn(root, (name) => taskNames.has(name));
  return (await readJsonLines(tasksFile, TaskSchema)).map((t) => ({
    id: t.task_id,
    group: t.level || 'unlevelled',
    question: t.question,
    guidelines: t.guidelines,
    ...(t.answer !== undefined && t.answer !== null && String(t.answer) !== ''
      ? { answer: String(t.answer) }
      : {}),
    files,
  }));
}
