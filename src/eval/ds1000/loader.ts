import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import { readJsonLines } from '../jsonl.ts';
import type { EvalTask } from '../suite.ts';

const RecordSchema = z.object({
  prompt: z.string(),
  reference_code: z.string(),
  code_context: z.string(),
  metadata: z
    .object({
      problem_id: z.union([z.number(), z.string()]),
      library: z.string(),
      perturbation_type: z.string().default(''),
    })
    .passthrough(),
});

export interface Ds1000Task extends EvalTask {
  prompt: string;
  referenceCode: string;
  codeContext: string;
  perturbationType: string;
}

export const DS1000_FILE = 'ds1000.jsonl.gz';

/** DS-1000 tasks from the simplified release (`ds1000.jsonl[.gz]`, or a folder holding it). */
export async function loadDs1000(path: string): Promise<Ds1000Task[]> {
  let file = path;
  try {
    if ((await stat(path)).isDirectory()) file = join(path, DS1000_FILE);
  } catch {
    throw new InvalidInputError(`no such file or folder: ${path}`, { param: 'data' });
  }
  const records = await readJsonLines(file, RecordSchema);
  return records.map((r) => ({
    id: String(r.metadata.problem_id),
    group: r.metadata.library,
    prompt: r.prompt,
    referenceCode: r.reference_code,
    codeContext: r.code_context,
    perturbationType: r.metadata.perturbation_type,
  }));
}

const AnswerSchema = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    code: z.union([z.string(), z.array(z.string()), z.null()]).optional(),
    metadata: z
      .object({ problem_id: z.union([z.number(), z.string()]) })
      .passthrough()
      .optional(),
  })
  .passthrough();

/**
 * Answers in the shape the DS-1000 answer files have: `{id?, code, metadata.problem_id}`,
 * `code` a string or a one-element list (kept as its first element; the rest of the
 * cleaning happens when the answer is scored). The problem id comes from the metadata, else `id`.
 */
export async function readDs1000Answers(path: string): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const record of await readJsonLines(path, AnswerSchema)) {
    const id = record.metadata?.problem_id ?? record.id;
    if (id === undefined)
      throw new InvalidInputError(`${path}: an answer has neither metadata.problem_id nor id`);
    const code = record.code;
    answers.set(String(id), typeof code === 'string' ? code : (code?.[0] ?? ''));
  }
  return answers;
}
