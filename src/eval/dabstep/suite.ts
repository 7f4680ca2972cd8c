import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { finalAnswerLine } from '../context-files.ts';
import { readJsonLines } from '../jsonl.ts';
import type { Suite } from '../suite.ts';
import { type DabstepTask, loadDabstep } from './loader.ts';
import { questionScorer } from './scorer.ts';

export const SUBMISSION_FILE = 'submission.jsonl';

const AnswerSchema = z
  .object({
    task_id: z.union([z.string(), z.number()]).transform(String),
    agent_answer: z.union([z.string(), z.number(), z.null()]),
  })
  .passthrough();

/** DABStep (Adyen & Hugging Face, 2025): closed questions over a folder of payment data files. */
export function dabstepSuite(): Suite<DabstepTask> {
  return {
    name: 'dabstep',
    title: "DABStep: multi-step questions over context files, scored by the official scorer's rules",
    dataHint: 'a DABStep data folder (tasks.jsonl or tasks/dev.jsonl, and context/ with the files)',
    load: loadDabstep,
    prompt: (task) => ({
      question:
        `${task.question}\n\n` +
        (task.guidelines ? `Guidelines: ${task.guidelines}\n\n` : '') +
        `The data files are in the working directory: ${task.files.map((f) => f.name).join(', ')}.\n` +
        'End with one last line of the form "Final Answer: <answer>", following the guidelines.',
      files: task.files,
    }),
    answerOf: (_task, outcome) => finalAnswerLine(outcome.answer) ?? finalAnswerLine(outcome.transcript),
    async readAnswers(path) {
      const answers = new Map<string, string>();
      for (const r of await readJsonLines(path, AnswerSchema))
        answers.set(r.task_id, r.agent_answer === null ? '' : String(r.agent_answer));
      return answers;
    },
    async score(task, answer) {
      // Hidden test-set tasks are answered (for the submission file) but cannot be scored here.
      if (task.answer === undefined)
        return {
          status: 'blocked',
          reason: `no public answer (hidden test set): the leaderboard scores it from ${SUBMISSION_FILE}`,
        };
      if (answer === undefined) return { status: 'failed', reason: 'no answer' };
      const passed = questionScorer(answer, task.answer);
      return {
        status: passed ? 'passed' : 'failed',
        reason: `${passed ? 'matches' : 'differs from'} the answer: ${JSON.stringify(answer)} vs ${JSON.stringify(task.answer)}`,
        detail: { gold: task.answer, answer },
      };
    },
    /** The leaderboard's submission format: one `{task_id, agent_answer, reasoning_trace}` per task. */
    async finish(outDir, done) {
      const lines = done.map(({ task, answer }) =>
        JSON.stringify({ task_id: task.id, agent_answer: answer ?? '', reasoning_trace: '' }),
      );
      await writeFile(join(outDir, SUBMISSION_FILE), lines.length ? `${lines.join('\n')}\n` : '');
      return [SUBMISSION_FILE];
    },
  };
}
