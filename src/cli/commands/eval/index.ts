import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { InvalidInputError } from '../../../errors/index.ts';
import { createAgentRunner } from '../../../eval/agent-runner.ts';
import { judgeFromModel } from '../../../eval/judge.ts';
import { Progress } from '../../../eval/progress.ts';
import { runEval } from '../../../eval/runner.ts';
import { SUITES } from '../../../eval/suites.ts';
import { summaryMarkdown } from '../../../eval/summary.ts';
import { UnknownModelError } from '../../../llm/errors/unknown-model-error.ts';
import { loadModelRegistry, type ModelRegistry } from '../../../llm/registry.ts';
import { createDockerSandbox } from '../../../sandbox/docker/manager.ts';
import { numberFlag, parseFlags } from '../../args.ts';
import { EXIT } from '../../exit-codes.ts';
import type { CommandIO } from '../../io.ts';
import { defaultOutputName, selectTasks } from './select.ts';

export const usage =
  `analyst eval SUITE [--model ID | --answers FILE] [--data PATH] [--limit N] [--ids LIST] [--workers N] ` +
  `[--out DIR] [--resume] [--json] [--judge MODEL] [--models FILE]`;

export const summary = `score a model (or an answers file) on a benchmark suite: ${Object.keys(SUITES).join(', ')}`;

/**
 * `analyst eval`: loads the suite's tasks from --data, answers them (from --answers, or by
 * running the agent with --model), scores them as the suite's authors do, and writes
 * traces/, results.jsonl, summary.json and summary.md into the output folder. Progress goes
 * to stderr; the summary table (or with --json the summary object) to stdout.
 * Exit: 0 every task scored, 1 some tasks ended in error (e.g. no sandbox), 2 bad input (a
 * judged suite without --judge included), 130 cancelled.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      model: { type: 'string' },
      answers: { type: 'string' },
      data: { type: 'string' },
      limit: { type: 'string' },
      ids: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
      resume: { type: 'boolean' },
      json: { type: 'boolean' },
      judge: { type: 'string' },
      models: { type: 'string' },
    },
    usage,
  );
  const name = positionals[0];
  if (!name) throw new InvalidInputError(`name a suite: ${Object.keys(SUITES).join(', ')}\nusage: ${usage}`);
  if (positionals.length > 1)
    throw new InvalidInputError(`unexpected argument "${positionals[1]}"\nusage: ${usage}`);
  const makeSuite = SUITES[name];
  if (!makeSuite)
    throw new InvalidInputError(`unknown suite "${name}": the suites are ${Object.keys(SUITES).join(', ')}`, {
      param: 'suite',
    });
  const suite = makeSuite();
  if (values.model !== undefined && values.answers !== undefined)
    throw new InvalidInputError('give --model ID or --answers FILE, not both');
  if (suite.needsJudge && values.judge === undefined)
    throw new InvalidInputError(
      `the ${suite.name} suite is scored by a judge model: give --judge MODEL (any configured OpenAI-compatible model); nothing was run`,
      { param: 'judge' },
    );
  if (values.data === undefined)
    throw new InvalidInputError(`give --data PATH: ${suite.dataHint}`, { param: 'data' });
  const limit = numberFlag(values.limit, 'limit', 1, 1_000_000);
  const workers = numberFlag(values.workers, 'workers', 1, 32) ?? Math.min(8, availableParallelism());
  if (!Number.isInteger(workers))
    throw new InvalidInputError('--workers must be a whole number', { param: 'workers' });
  if (values.resume && values.out === undefined)
    throw new InvalidInputError('--resume needs --out DIR: the folder of the run to continue', {
      param: 'out',
    });

  const all = await suite.load(resolve(values.data));
  const tasks = selectTasks(all, { ids: values.ids, limit });
  const registry = needsRegistry(values)
    ? loadModelRegistry({ env: io.env, file: values.models })
    : undefined;
  const judge =
    values.judge !== undefined ? judgeFromModel(languageModel(registry!, values.judge, 'judge')) : undefined;
  let answers: { source: string; byId: Map<string, string> } | undefined;
  if (values.answers === 'reference') {
    if (!suite.referenceAnswers)
      throw new InvalidInputError(`the ${suite.name} suite has no reference answers`, { param: 'answers' });
    answers = { source: 'reference', byId: suite.referenceAnswers(tasks) };
  } else if (values.answers !== undefined) {
    answers = { source: values.answers, byId: await suite.readAnswers(resolve(values.answers)) };
  }
  const modelId = answers ? undefined : (values.model ?? registry!.default().id);
  if (modelId !== undefined) knownModel(registry!, modelId);
  const outDir = resolve(values.out ?? defaultOutputName(suite.name, new Date()));
  const say = values.json ? io.stderr : io.stdout;
  say(
    `analyst eval ${suite.name}: ${tasks.length} tasks, answered by ${modelId ?? `answers:${answers!.source}`}, ` +
      `${workers} worker(s) → ${outDir}\n`,
  );

  // Task-pool kernels import every library a suite uses before they are ready: give them time.
  const sandbox = await createDockerSandbox({ reapIntervalMs: 0, startupTimeoutMs: 180_000 });
  const progress = new Progress({ total: tasks.length, write: io.stderr, tty: io.stderrIsTTY ?? false });
  let errors = 0;
  const agent =
    modelId !== undefined ? createAgentRunner({ registry: registry!, modelId, sandbox }) : undefined;
  try {
    const result = await runEval({
      suite,
      tasks,
      answers,
      agent,
      sandbox,
      judge,
      workers,
      outDir,
      resume: values.resume ?? false,
      abortSignal: io.abortSignal,
      onTask: (r) => progress.task(r.id, r.status, r.duration_ms),
    });
    errors = result.errors;
    if (values.json) io.stdout(`${JSON.stringify(result)}\n`);
    else io.stdout(`\n${summaryMarkdown(result)}\nresults in ${outDir}\n`);
    if (io.abortSignal.aborted) return EXIT.interrupted;
  } finally {
    await agent?.close();
    await sandbox.close();
  }
  return errors > 0 ? EXIT.failure : EXIT.ok;
}

function needsRegistry(values: { answers?: string; judge?: string }): boolean {
  return values.answers === undefined || values.judge !== undefined;
}

function knownModel(registry: ModelRegistry, id: string): void {
  try {
    registry.get(id);
  } catch (error) {
    if (error instanceof UnknownModelError)
      throw new InvalidInputError(`${error.message}; pick one with --model`, {
        param: 'model',
        cause: error,
      });
    throw error;
  }
}

function languageModel(registry: ModelRegistry, id: string, flag: string) {
  knownModel(registry, id);
  if (registry.get(id).protocol === 'offline')
    throw new InvalidInputError(`--${flag} ${id}: the offline analyst cannot judge; give a language model`, {
      param: flag,
    });
  return registry.languageModel(id);
}
