import { readFreeTextAnswers } from '../judged-answers.ts';
import type { Suite } from '../suite.ts';
import { parseResearchScores, researchJudgePrompt } from './judge-prompt.ts';
import { loadResearch, type ResearchTask } from './loader.ts';

/** A report passes when the judge's mean of Content and Format reaches the middle of the 1–5 scale. */
export const RESEARCH_PASS_MEAN = 3;
/** The authors try a judge four times before giving up on a task. */
const JUDGE_ATTEMPTS = 4;

/** DABStep-Research: open data-science reports over DABStep's files, judged on content and format. */
export function dabstepResearchSuite(): Suite<ResearchTask> {
  return {
    name: 'dabstep-research',
    title: 'DABStep-Research: open analysis reports, judged 1–5 on content and format against a checklist',
    dataHint: 'dabstep_research.jsonl (or its folder) with the files it names beside it or in context/',
    needsJudge: true,
    load: loadResearch,
    prompt: (task) => ({
      question: `${task.question}\n\nThe data files are in the working directory: ${task.files.map((f) => f.name).join(', ')}.`,
      files: task.files,
    }),
    answerOf: (_task, outcome) => outcome.answer?.trim() || undefined,
    readAnswers: readFreeTextAnswers,
    async score(task, answer, context) {
      if (!context.judge) throw new Error('dabstep-research needs a judge model');
      if (answer === undefined) return { status: 'failed', reason: 'no report' };
      const prompt = researchJudgePrompt(task.question, task.checklist, answer);
      const replies: string[] = [];
      for (let attempt = 0; attempt < JUDGE_ATTEMPTS; attempt++) {
        const reply = await context.judge.ask(prompt, { maxTokens: 4000, abortSignal: context.abortSignal });
        replies.push(reply);
        const scores = parseResearchScores(reply);
        if (!scores) continue;
        const mean = (scores.Content + scores.Format) / 2;
        return {
          status: mean >= RESEARCH_PASS_MEAN ? 'passed' : 'failed',
          reason: `judge: content ${scores.Content}, format ${scores.Format} (mean ${mean}; passing is ${RESEARCH_PASS_MEAN})`,
          detail: { judge_reply: reply, attempts: attempt + 1 },
          extra: { judge_scores: { content: scores.Content, format: scores.Format, mean } },
        };
      }
      return {
        status: 'error',
        reason: `the judge gave no readable scores in ${JUDGE_ATTEMPTS} attempts`,
        detail: { judge_replies: replies },
      };
    },
  };
}
