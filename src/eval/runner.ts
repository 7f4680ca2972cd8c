import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../errors/index.ts';
import type { SandboxManager, TaskPool } from '../sandbox/sandbox.ts';
import type { AgentRunner } from './agent-runner.ts';
import type { Judge } from './judge.ts';
import { ResultsFile, readResults, type TaskResult } from './results-file.ts';
import type { AgentOutcome, EvalTask, ScoringContext, Suite, Verdict } from './suite.ts';
import { type EvalSummary, summarize, summaryMarkdown } from './summary.ts';
import { writeTrace } from './trace-file.ts';

export const RESULTS_FILE = 'results.jsonl';
export const TRACES_FOLDER = 'traces';

export interface RunEvalOptions<T extends EvalTask> {
  suite: Suite<T>;
  /** The tasks to run, in the order the summary lists them (already cut by --ids / --limit). */
  tasks: readonly T[];
  /** Exactly one of the two: answers read from a file, or an agent that produces them. */
  answers?: { source: string; byId: ReadonlyMap<string, string> };
  agent?: AgentRunner;
  /** Needed when the suite scores by running programs (its task pool comes from here). */
  sandbox?: SandboxManager;
  /** A task pool to use instead of making one (left open: its owner closes it). */
  taskPool?: TaskPool;
  judge?: Judge;
  /** Tasks in flight at once (and task-pool containers). Default 1. */
  workers?: number;
  outDir: string;
  /** Keep the tasks already in outDir/results.jsonl and run only the others. */
  resume?: boolean;
  /** Called as each task finishes (the CLI draws progress from it). */
  onTask?: (result: TaskResult) => void;
  abortSignal?: AbortSignal;
  now?: () => number;
}

/**
 * Runs a suite: `workers` tasks at a time, each answered (from the file or by the agent),
 * scored, traced to traces/<id>.json and appended to results.jsonl as soon as it is done;
 * then summary.json and summary.md. Returns the summary of every task in `tasks`, those
 * kept from an earlier run included. A cancel stops starting tasks and records none cut short.
 */
export async function runEval<T extends EvalTask>(options: RunEvalOptions<T>): Promise<EvalSummary> {
  const { suite } = options;
  const now = options.now ?? Date.now;
  const started = now();
  if ((options.answers === undefined) === (options.agent === undefined))
    throw new InvalidInputError('give either answers or a model, not both and not neither');
  const workers = options.workers ?? 1;
  const resultsPath = join(options.outDir, RESULTS_FILE);
  const tracesDir = join(options.outDir, TRACES_FOLDER);
  await mkdir(tracesDir, { recursive: true });
  const earlier = options.resume ? await readResults(resultsPath) : new Map<string, TaskResult>();
  if (!options.resume && (await nonEmpty(resultsPath)))
    throw new InvalidInputError(
      `${resultsPath} already has results: pass --resume to continue that run, or choose another --out`,
      { param: 'out' },
    );
  const wanted = new Set(options.tasks.map((t) => t.id));
  const kept = new Map([...earlier].filter(([id]) => wanted.has(id)));
  const pending = options.tasks.filter((t) => !kept.has(t.id));

  let pool: TaskPool | undefined;
  const results = new Map<string, TaskResult>(kept);
  const file = await ResultsFile.open(resultsPath);
  try {
    if (options.taskPool) pool = options.taskPool;
    else if (suite.taskPool && pending.length > 0) {
      if (!options.sandbox) throw new Error(`the ${suite.name} suite runs programs: give it a sandbox`);
      pool = await options.sandbox.createTaskPool({ workers, preloadModules: suite.taskPool.preloadModules });
    }
    const context: ScoringContext = {
      taskPool: pool,
      judge: options.judge,
      abortSignal: options.abortSignal,
    };
    if (pending.length > 0) await suite.prepare?.(context, pending);
    const queue = [...pending];
    const worker = async () => {
      for (;;) {
        if (options.abortSignal?.aborted) return;
        const task = queue.shift();
        if (!task) return;
        const result = await runTask(task, options, context, tracesDir, now);
        if (!result || options.abortSignal?.aborted) return;
        await file.append(result);
        results.set(task.id, result);
        options.onTask?.(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(workers, Math.max(1, pending.length)) }, worker));
  } finally {
    await file.close();
    if (pool !== options.taskPool) await pool?.close();
  }

  const ordered = options.tasks.flatMap((t) => results.get(t.id) ?? []);
  if (suite.finish) {
    const byId = new Map(options.tasks.map((t) => [t.id, t]));
    await suite.finish(
      options.outDir,
      ordered.map((r) => ({
        task: byId.get(r.id)!,
        answer: typeof r.answer === 'string' ? r.answer : undefined,
      })),
    );
  }
  const summary = summarize(ordered, {
    suite: suite.name,
    answeredBy: options.agent ? options.agent.modelId : `answers:${options.answers!.source}`,
    judge: options.judge?.id,
    breakdowns: suite.breakdowns,
    wallMs: now() - started,
    resumed: kept.size,
  });
  await writeFile(join(options.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(join(options.outDir, 'summary.md'), summaryMarkdown(summary));
  return summary;
}

/** One task from start to trace; undefined when a cancel cut it short (it is not recorded). */
async function runTask<T extends EvalTask>(
  task: T,
  options: RunEvalOptions<T>,
  context: ScoringContext,
  tracesDir: string,
  now: () => number,
): Promise<TaskResult | undefined> {
  const { suite } = options;
  const started = now();
  const trace: Record<string, unknown> = { id: task.id, group: task.group, suite: suite.name };
  let verdict: Verdict;
  let answer: string | undefined;
  let outcome: AgentOutcome | undefined;
  const blocked = suite.blocked?.(task);
  try {
    if (blocked !== undefined) {
      verdict = { status: 'blocked', reason: blocked };
    } else {
      if (options.answers) {
        answer = options.answers.byId.get(task.id);
        trace.answer_source = options.answers.source;
      } else {
        const prompt = suite.prompt(task);
        trace.prompt = {
          question: prompt.question,
          files: prompt.files.map((f) => f.name),
        };
        outcome = await options.agent!.run(prompt, { abortSignal: options.abortSignal });
        if (outcome.status === 'cancelled' || options.abortSignal?.aborted) return undefined;
        trace.agent = {
          status: outcome.status,
          reason: outcome.reason,
          tokens: outcome.tokens,
          answer: outcome.answer,
          events: outcome.events,
        };
        answer = suite.answerOf(task, outcome);
      }
      trace.answer = answer ?? null;
      verdict =
        outcome?.status === 'failed' && answer === undefined
          ? { status: 'error', reason: `the agent run failed: ${outcome.reason ?? 'no reason given'}` }
          : await suite.score(task, answer, context);
    }
  } catch (error) {
    if (options.abortSignal?.aborted) return undefined;
    verdict = { status: 'error', reason: `scoring failed: ${(error as Error).message}` };
  }
  if (options.abortSignal?.aborted && verdict.status !== 'blocked') return undefined;
  const result: TaskResult = {
    id: task.id,
    group: task.group,
    status: verdict.status,
    reason: verdict.reason,
    duration_ms: Math.round(now() - started),
    tokens: outcome?.tokens ?? 0,
    ...suite.fields?.(task),
    ...verdict.extra,
    answer: answer ?? null,
  };
  trace.verdict = { status: verdict.status, reason: verdict.reason, ...verdict.detail };
  trace.result = result;
  await writeTrace(tracesDir, task.id, trace);
  return result;
}

async function nonEmpty(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > 0;
  } catch {
    return false;
  }
}
