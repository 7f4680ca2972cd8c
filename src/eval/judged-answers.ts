import { z } from 'zod';
import { readJsonLines } from './jsonl.ts';

const AnswerSchema = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    task_id: z.union([z.string(), z.number()]).optional(),
    answer: z.string().optional(),
    response: z.string().optional(),
    agent_answer: z.string().optional(),
  })
  .passthrough();

/** Answers for judged suites: `{id | task_id, answer | response | agent_answer}` per line. */
export async function readFreeTextAnswers(path: string): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const r of await readJsonLines(path, AnswerSchema)) {
    const id = r.id ?? r.task_id;
    const text = r.answer ?? r.response ?? r.agent_answer;
    if (id !== undefined && text !== undefined) answers.set(String(id), text);
  }
  return answers;
}
