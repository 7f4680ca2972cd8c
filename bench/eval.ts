import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanAnswer } from '../src/eval/ds1000/clean.ts';
import { type Ds1000Task, loadDs1000 } from '../src/eval/ds1000/loader.ts';
import { assembleProgram } from '../src/eval/ds1000/program.ts';
import { PROGRAM_TIMEOUT_MS, verdictOf } from '../src/eval/ds1000/scorer.ts';
import { ds1000Suite } from '../src/eval/ds1000/suite.ts';
import { runEval } from '../src/eval/runner.ts';
import { createDockerSandbox } from '../src/sandbox/docker/manager.ts';
import { round } from './stats.ts';

/**
 * `npm run bench -- eval`: the same DS-1000 tasks (ANALYST_BENCH_TASKS, default 240, spread
 * over every library the image runs) scored two ways in one run, with the same answers
 * (codex002's), the same image and the same parallelism (ANALYST_BENCH_WORKERS, default 2):
 * - analyst: the harness (`runEval`): warm task-pool containers whose kernels have the
 *   libraries imported, a forked process per task;
 * - reference: the authors' way, a fresh `python3` per program (in the same kind of container).
 * Wall time of each includes starting its containers. Data: ANALYST_DS1000_DATA (default
 * ../shared/benchmarks/ds1000 beside the repository).
 */
export async function runEvalBench(): Promise<void> {
  const data =
    process.env.ANALYST_DS1000_DATA ?? new URL('../../shared/benchmarks/ds1000/', import.meta.url).pathname;
  const count = Number(process.env.ANALYST_BENCH_TASKS ?? 240);
  const workers = Number(process.env.ANALYST_BENCH_WORKERS ?? 2);
  const suite = ds1000Suite();
  const all = await loadDs1000(join(data, 'ds1000.jsonl.gz'));
  const answers = await suite.readAnswers(join(data, 'codex002-answers.jsonl'));
  // A generous start-up limit: on a loaded machine a kernel importing every library takes a while.
  const sandbox = await createDockerSandbox({ reapIntervalMs: 0, startupTimeoutMs: 180_000 });
  const out = await mkdtemp(join(tmpdir(), 'analyst-bench-eval-'));
  try {
    // Which tasks this image can run at all (not timed).
    const probe = await sandbox.createTaskPool({ workers: 1, preloadModules: [] });
    await suite.prepare!({ taskPool: probe }, all);
    await probe.close();
    const runnable = all.filter((t) => suite.blocked!(t) === undefined);
    const step = Math.max(1, runnable.length / count);
    const tasks = Array.from(
      { length: Math.min(count, runnable.length) },
      (_, i) => runnable[Math.floor(i * step)]!,
    );

    const analystStart = performance.now();
    await runEval({
      suite,
      tasks,
      answers: { source: 'codex002', byId: answers },
      sandbox,
      workers,
      outDir: out,
    });
    const analystMs = performance.now() - analystStart;
    const analyst = new Map<string, string>();
    for (const line of readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(line) as { id: string; status: string };
      analyst.set(r.id, r.status);
    }

    const referenceStart = performance.now();
    const reference = await freshPythonWay(sandbox, tasks, answers, workers);
    const referenceMs = performance.now() - referenceStart;

    const differ = tasks.filter((t) => analyst.get(t.id) !== reference.get(t.id));
    const line = (name: string, verdicts: Map<string, string>, wallMs: number) => ({
      name,
      tasks: tasks.length,
      passed: [...verdicts.values()].filter((s) => s === 'passed').length,
      wall_ms: Math.round(wallMs),
      tasks_per_min: round((tasks.length / wallMs) * 60_000, 1),
    });
    const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
    print(line('eval_ds1000_analyst', analyst, analystMs));
    print(line('eval_ds1000_reference', reference, referenceMs));
    if (differ.length > 0)
      process.stderr.write(
        `verdicts differ: ${differ.map((t) => `${t.id} (${analyst.get(t.id)} vs ${reference.get(t.id)})`).join(', ')}\n`,
      );
    print({
      ratios: { 'analyst/reference': round(analystMs / referenceMs, 3) },
      verdicts_identical: differ.length === 0,
    });
  } finally {
    await sandbox.close();
    await rm(out, { recursive: true, force: true });
  }
}

/** Each program in a fresh python3, `workers` at a time, on containers that preload nothing. */
async function freshPythonWay(
  sandbox: Awaited<ReturnType<typeof createDockerSandbox>>,
  tasks: readonly Ds1000Task[],
  answers: ReadonlyMap<string, string>,
  workers: number,
): Promise<Map<string, string>> {
  const driver = readFileSync(new URL('./ds1000-fresh-python.py', import.meta.url), 'utf8');
  const pool = await sandbox.createTaskPool({ workers, preloadModules: [] });
  const verdicts = new Map<string, string>();
  const queue = [...tasks];
  try {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let task = queue.shift(); task; task = queue.shift()) {
          const program = assembleProgram(task.codeContext, cleanAnswer(answers.get(task.id) ?? ''));
          const result = await pool.run({
            code: `PROGRAM = ${JSON.stringify(program)}\n${driver}`,
            timeoutMs: PROGRAM_TIMEOUT_MS,
          });
          verdicts.set(task.id, verdictOf(result).status);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return verdicts;
}
