import { z } from 'zod';
import { readJsonLines } from '../jsonl.ts';
import type { Suite } from '../suite.ts';
import { extractFinalAnswer } from './extract.ts';
import { loadTablebench, type TablebenchTask, tableCsv } from './loader.ts';
import { exactMatch, normalizeAnswer } from './normalize.ts';

const AnswerSchema = z
  .object({
    id: z.string(),
    answer: z.union([z.string(), z.number()]).optional(),
    model_answer: z.union([z.string(), z.number()]).optional(),
    response: z.string().optional(),
    full_response: z.string().optional(),
  })
  .passthrough();

/** TableBench (Wu et al., 2024): fact checking and numerical reasoning over a table. */
export function tablebenchSuite(): Suite<TablebenchTask> {
  return {
    name: 'tablebench',
    title: 'TableBench: fact checking and numerical reasoning over a table, exact match after normalisation',
    dataHint: 'a TableBench JSON-lines file such as dev.jsonl',
    breakdowns: ['qsubtype'],
    load: loadTablebench,
    prompt: (task) => ({
      question: `${task.instruction}\n\n(The same table is in the workspace as table.csv.)`,
      files: [{ name: 'table.csv', content: tableCsv(task.columns, task.rows) }],
    }),
    answerOf(_task, outcome) {
      return (
        (outcome.answer !== undefined ? extractFinalAnswer(outcome.answer) : undefined) ??
        extractFinalAnswer(outcome.transcript) ??
        outcome.answer?.trim()
      );
    },
    async readAnswers(path) {
      const answers = new Map<string, string>();
      for (const r of await readJsonLines(path, AnswerSchema)) {
        const direct = r.answer ?? r.model_answer;
        const reply = r.response ?? r.full_response;
        const answer =
          direct !== undefined ? String(direct) : reply !== undefined ? extractFinalAnswer(reply) : undefined;
        if (answer !== undefined) answers.set(r.id, answer);
      }
      return answers;
    },
    async score(task, answer) {
      if (answer === undefined || answer === '') return { status: 'failed', reason: 'no Final Answer line' };
      const passed = exactMatch(task.answer, answer);
      const shown = `${JSON.stringify(normalizeAnswer(answer))} vs gold ${JSON.stringify(normalizeAnswer(task.answer))}`;
      return {
        status: passed ? 'passed' : 'failed',
        reason: passed ? `matches: ${shown}` : `differs: ${shown}`,
        detail: { gold: task.answer, answer },
      };
    },
    fields: (task) => ({ qsubtype: task.qsubtype }),
  };
}
