import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import { firstExisting } from '../context-files.ts';
import { readJsonLines } from '../jsonl.ts';
import type { EvalTask, TaskFile } from '../suite.ts';

const TaskSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    files: z.array(z.string()).default([]),
    question: z.string(),
    checklist: z.string().default(''),
    type: z.string().default('research'),
  })
  .passthrough();

export interface ResearchTask extends EvalTask {
  question: string;
  checklist: string;
  files: TaskFile[];
}

export const RESEARCH_FILE = 'dabstep_research.jsonl';

/**
 * DABStep-Research tasks (`{id, files, question, checklist, type}` per line) and the files
 * they name, looked up in `context/` beside the tasks file, else beside it. `--data` is the
 * tasks file or the folder holding dabstep_research.jsonl.
 */
export async function loadResearch(path: string): Promise<ResearchTask[]> {
  let file = path;
  try {
    if ((await stat(path)).isDirectory()) file = join(path, RESEARCH_FILE);
  } catch {
    throw new InvalidInputError(`no such file or folder: ${path}`, { param: 'data' });
  }
  const root = dirname(file);
  const tasks: ResearchTask[] = [];
  for (const t of await readJsonLines(file, TaskSchema)) {
    const files: TaskFile[] = [];
    for (const name of t.files) {
      if (name.includes('/') || name.startsWith('.'))
        throw new InvalidInputError(`task ${t.id} names a file outside its folder: ${name}`);
      const found = await firstExisting([join(root, 'context', name), join(root, name)]);
      if (!found)
        throw new InvalidInputError(`task ${t.id} needs ${name}, which is not in ${root}/context or ${root}`);
      files.push({ name, path: found });
    }
    tasks.push({ id: t.id, group: t.type, question: t.question, checklist: t.checklist, files });
  }
  return tasks;
}
