import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import { filesIn, firstExisting } from '../context-files.ts';
import { readJsonLines } from '../jsonl.ts';
import type { EvalTask, TaskFile } from '../suite.ts';

const SampleSchema = z
  .object({
    id: z.string(),
    name: z.string().default(''),
    questions: z.array(z.string()),
    answers: z.array(z.union([z.string(), z.number(), z.null()])),
  })
  .passthrough();

export interface DsbenchTask extends EvalTask {
  /** The challenge's name (the summary groups by its id). */
  challenge: string;
  question: string;
  answer: string;
  files: TaskFile[];
}

/**
 * DSBench data-analysis tasks: `--data` is the folder with `data.json` (one challenge per
 * line: `{id, name, questions, answers}`) and, per challenge, a folder `data/<id>/` (or
 * `<id>/`) holding `<question>.txt` for each question and the workbooks and other files the
 * questions are about. `introduction.txt`, when there, goes before every question.
 */
export async function loadDsbench(path: string): Promise<DsbenchTask[]> {
  const index = (await isDirectory(path)) ? join(path, 'data.json') : path;
  const root = index === path ? join(path, '..') : path;
  const samples = await readJsonLines(index, SampleSchema);
  const tasks: DsbenchTask[] = [];
  for (const sample of samples) {
    if (sample.questions.length === 0) continue;
    const dir = await firstExisting([join(root, 'data', sample.id), join(root, sample.id)]);
    if (!dir) throw new InvalidInputError(`no folder for DSBench challenge ${sample.id} under ${root}`);
    const questionFiles = new Set(sample.questions.map((q) => `${q}.txt`));
    const files = await filesIn(dir, (name) => questionFiles.has(name));
    const introduction = await readFile(join(dir, 'introduction.txt'), 'utf8').catch(() => '');
    for (const [i, name] of sample.questions.entries()) {
      const text = await readFile(join(dir, `${name}.txt`), 'utf8').catch(() => {
        throw new InvalidInputError(`DSBench challenge ${sample.id} has no ${name}.txt in ${dir}`);
      });
      tasks.push({
        id: `${sample.id}/${name}`,
        group: sample.id,
        challenge: sample.name,
        question: introduction ? `${introduction.trim()}\n\n${text.trim()}` : text.trim(),
        answer: String(sample.answers[i] ?? ''),
        files,
      });
    }
  }
  return tasks;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    throw new InvalidInputError(`no such file or folder: ${path}`, { param: 'data' });
  }
}
