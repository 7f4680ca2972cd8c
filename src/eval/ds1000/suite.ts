import { InvalidInputError } from '../../errors/index.ts';
import type { ScoringContext, Suite, Verdict } from '../suite.ts';
import { cleanAnswer } from './clean.ts';
import { type Ds1000Task, loadDs1000, readDs1000Answers } from './loader.ts';
import { assembleProgram } from './program.ts';
import { codeFromAnswer, ds1000Prompt } from './prompt.ts';
import { importedModules, missingModuleReason, networkNeed, probeProgram } from './requirements.ts';
import { PROGRAM_TIMEOUT_MS, verdictOf } from './scorer.ts';

/**
 * What each kernel of the pool imports once: every library DS-1000 programs import (and the
 * submodules they use most), so a task's own imports find them loaded. Torch is left out:
 * it would take most of a sandbox's 512 MB before the task starts.
 */
export const DS1000_PRELOAD = [
  'numpy',
  'pandas',
  'matplotlib',
  'seaborn',
  'PIL.Image',
  'scipy',
  'scipy.stats',
  'scipy.sparse',
  'scipy.optimize',
  'scipy.interpolate',
  'scipy.spatial',
  'scipy.integrate',
  'scipy.signal',
  'scipy.ndimage',
  'scipy.cluster.hierarchy',
  'sklearn',
  'sklearn.linear_model',
  'sklearn.preprocessing',
  'sklearn.model_selection',
  'sklearn.feature_extraction.text',
  'sklearn.cluster',
  'sklearn.svm',
  'sklearn.ensemble',
  'sklearn.pipeline',
  'sklearn.metrics',
  'sklearn.decomposition',
  'sklearn.tree',
  'tokenize',
  'copy',
] as const;

/**
 * DS-1000 (Lai et al., 2022): 1000 data-science code tasks over seven libraries, scored by
 * running them. `programTimeoutMs` (default 30 s, the sandbox's cap) is for tests.
 */
export function ds1000Suite(options: { programTimeoutMs?: number } = {}): Suite<Ds1000Task> {
  const timeoutMs = options.programTimeoutMs ?? PROGRAM_TIMEOUT_MS;
  let missing = new Set<string>();
  return {
    name: 'ds1000',
    title: 'DS-1000: data-science code completion in seven libraries, scored by running each program',
    dataHint: 'the DS-1000 release file ds1000.jsonl.gz (or the folder holding it)',
    taskPool: { preloadModules: DS1000_PRELOAD },
    breakdowns: ['perturbation_type'],
    load: loadDs1000,
    async prepare(context: ScoringContext, tasks) {
      const modules = [...new Set(tasks.flatMap((t) => importedModules(t.codeContext)))].sort();
      if (!context.taskPool || modules.length === 0) return;
      const result = await context.taskPool.run({
        code: probeProgram(modules),
        timeoutMs: PROGRAM_TIMEOUT_MS,
      });
      if (result.status !== 'ok')
        throw new Error(
          `could not ask the sandbox which libraries it has: ${result.message ?? result.output}`,
        );
      const found = JSON.parse(result.output.trim().split('\n').at(-1) ?? '{}') as Record<string, boolean>;
      missing = new Set(modules.filter((m) => found[m] !== true));
    },
    blocked(task) {
      const lacking = importedModules(task.codeContext).filter((m) => missing.has(m));
      if (lacking.length > 0) return missingModuleReason(lacking);
      const network = networkNeed(task.codeContext);
      return network ? `${network}, and sandboxes have no network` : undefined;
    },
    prompt: (task) => ds1000Prompt(task.prompt),
    answerOf: (_task, outcome) => codeFromAnswer(outcome.answer),
    readAnswers: readDs1000Answers,
    async score(task, answer, context): Promise<Verdict> {
      if (!context.taskPool) throw new Error('DS-1000 scoring needs a task pool');
      if (answer === undefined) return { status: 'failed', reason: 'no answer' };
      const code = cleanAnswer(answer);
      const result = await context.taskPool.run({
        code: assembleProgram(task.codeContext, code),
        timeoutMs,
        abortSignal: context.abortSignal,
      });
      const verdict = verdictOf(result);
      return { ...verdict, detail: { ...verdict.detail, cleaned_answer: code } };
    },
    fields: (task) => ({ perturbation_type: task.perturbationType }),
    referenceAnswers(tasks) {
      if (tasks.length === 0)
        throw new InvalidInputError('no DS-1000 tasks to take reference solutions from');
      return new Map(tasks.map((t) => [t.id, t.referenceCode]));
    },
  };
}
