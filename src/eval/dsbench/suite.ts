import { readFreeTextAnswers } from '../judged-answers.ts';
import type { Suite } from '../suite.ts';
import { dsbenchJudgePrompt, judgedTrue } from './judge-prompt.ts';
import { type DsbenchTask, loadDsbench } from './loader.ts';

/** DSBench data analysis (Jing et al., 2024): questions over workbooks, right or wrong by a judge model. */
export function dsbenchAnalysisSuite(): Suite<DsbenchTask> {
  return {
    name: 'dsbench-analysis',
    title: 'DSBench data analysis: questions over workbooks, judged right or wrong by a model',
    dataHint:
      'the DSBench data_analysis folder (data.json and data/<id>/ with the question files and workbooks)',
    needsJudge: true,
    load: loadDsbench,
    prompt: (task) => ({
      question: `${task.question}\n\nThe files for this question are in the working directory: ${task.files.map((f) => f.name).join(', ')}.`,
      files: task.files,
    }),
    answerOf: (_task, outcome) => outcome.answer?.trim() || undefined,
    readAnswers: readFreeTextAnswers,
    async score(task, answer, context) {
      if (!context.judge) throw new Error('dsbench-analysis needs a judge model');
      if (answer === undefined) return { status: 'failed', reason: 'no answer' };
      const reply = await context.judge.ask(dsbenchJudgePrompt(task.question, task.answer, answer), {
        maxTokens: 256,
        abortSignal: context.abortSignal,
      });
      const right = judgedTrue(reply);
      return {
        status: right ? 'passed' : 'failed',
        reason: `the judge said ${JSON.stringify(reply.trim().slice(0, 100))}`,
        detail: { gold: task.answer, answer, judge_reply: reply },
      };
    },
    fields: (task) => ({ challenge: task.challenge }),
  };
}
