import type { TaskResult } from './results-file.ts';
import type { TaskStatus } from './suite.ts';

/** Counts of one group of tasks; `score` = passed / (tasks − blocked), 0 when nothing could run. */
export interface Counts {
  tasks: number;
  passed: number;
  failed: number;
  blocked: number;
  errors: number;
  score: number;
}

/** The `--json` summary (a public shape) and summary.json. */
export interface EvalSummary extends Counts {
  suite: string;
  /** The model that answered, or `answers:<file>` when answers came from a file. */
  answered_by: string;
  judge?: string;
  groups: Record<string, Counts>;
  /** Other tabulations, e.g. `{ perturbation_type: { Origin: {...} } }`. */
  breakdowns: Record<string, Record<string, Counts>>;
  /** Tasks the environment could not run, listed apart (never counted as failures). */
  blocked_tasks: Array<{ id: string; group: string; reason: string }>;
  /** Sum of the tasks' own durations, and the wall time of this invocation. */
  task_ms: number;
  wall_ms: number;
  tokens: number;
  /** Tasks taken from an earlier run's results.jsonl (--resume). */
  resumed: number;
  /** Judged suites: mean of the judge's numbers (e.g. Content and Format), when there are any. */
  judge_means?: Record<string, number>;
}

export function emptyCounts(): Counts {
  return { tasks: 0, passed: 0, failed: 0, blocked: 0, errors: 0, score: 0 };
}

const FIELD: Record<TaskStatus, keyof Omit<Counts, 'tasks' | 'score'>> = {
  passed: 'passed',
  failed: 'failed',
  blocked: 'blocked',
  error: 'errors',
};

function add(counts: Counts, status: TaskStatus): void {
  counts.tasks += 1;
  counts[FIELD[status]] += 1;
  const runnable = counts.tasks - counts.blocked;
  counts.score = runnable > 0 ? counts.passed / runnable : 0;
}

export function summarize(
  results: readonly TaskResult[],
  meta: {
    suite: string;
    answeredBy: string;
    judge?: string;
    breakdowns?: readonly string[];
    wallMs: number;
    resumed: number;
  },
): EvalSummary {
  const total = emptyCounts();
  const groups: Record<string, Counts> = {};
  const breakdowns: Record<string, Record<string, Counts>> = {};
  const blocked: EvalSummary['blocked_tasks'] = [];
  const judged: Record<string, number[]> = {};
  let taskMs = 0;
  let tokens = 0;
  for (const result of results) {
    add(total, result.status);
    add(slot(groups, result.group, emptyCounts), result.status);
    for (const field of meta.breakdowns ?? []) {
      const value = result[field];
      if (typeof value !== 'string') continue;
      add(
        slot(
          slot(breakdowns, field, () => ({})),
          value,
          emptyCounts,
        ),
        result.status,
      );
    }
    if (result.status === 'blocked')
      blocked.push({ id: result.id, group: result.group, reason: result.reason });
    if (result.judge_scores && typeof result.judge_scores === 'object') {
      for (const [name, value] of Object.entries(result.judge_scores as Record<string, unknown>)) {
        if (typeof value === 'number') slot(judged, name, () => []).push(value);
      }
    }
    taskMs += result.duration_ms;
    tokens += typeof result.tokens === 'number' ? result.tokens : 0;
  }
  const judgeMeans = Object.fromEntries(
    Object.entries(judged).map(([name, values]) => [name, values.reduce((a, b) => a + b, 0) / values.length]),
  );
  return {
    suite: meta.suite,
    answered_by: meta.answeredBy,
    ...(meta.judge ? { judge: meta.judge } : {}),
    ...total,
    groups: sortKeys(groups),
    breakdowns: Object.fromEntries(Object.entries(breakdowns).map(([k, v]) => [k, sortKeys(v)])),
    blocked_tasks: blocked,
    task_ms: Math.round(taskMs),
    wall_ms: Math.round(meta.wallMs),
    tokens,
    resumed: meta.resumed,
    ...(Object.keys(judgeMeans).length > 0 ? { judge_means: judgeMeans } : {}),
  };
}

function slot<V>(record: Record<string, V>, key: string, make: () => V): V {
  if (!(key in record)) record[key] = make();
  return record[key]!;
}

function sortKeys<V>(record: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** summary.md: the tables a person reads. */
export function summaryMarkdown(summary: EvalSummary): string {
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
  const table = (title: string, rows: Record<string, Counts>) => [
    `| ${title} | tasks | passed | failed | errors | blocked | score |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...Object.entries(rows).map(
      ([name, c]) =>
        `| ${name} | ${c.tasks} | ${c.passed} | ${c.failed} | ${c.errors} | ${c.blocked} | ${pct(c.score)} |`,
    ),
  ];
  const lines = [
    `# ${summary.suite}: ${pct(summary.score)} (${summary.passed} of ${summary.tasks - summary.blocked} runnable tasks)`,
    '',
    `Answered by ${summary.answered_by}${summary.judge ? `, judged by ${summary.judge}` : ''}. ` +
      `${summary.tasks} tasks: ${summary.passed} passed, ${summary.failed} failed, ${summary.errors} errors, ` +
      `${summary.blocked} blocked by the environment. Wall time ${(summary.wall_ms / 1000).toFixed(1)} s ` +
      `(tasks' own time ${(summary.task_ms / 1000).toFixed(1)} s), ${summary.tokens} tokens` +
      (summary.resumed > 0 ? `, ${summary.resumed} tasks kept from an earlier run.` : '.'),
    '',
    ...table('group', { ...summary.groups, all: summary }),
  ];
  for (const [field, rows] of Object.entries(summary.breakdowns)) lines.push('', ...table(field, rows));
  if (summary.judge_means) {
    lines.push(
      '',
      'Judge means: ',
      ...Object.entries(summary.judge_means).map(([k, v]) => `- ${k}: ${v.toFixed(2)}`),
    );
  }
  if (summary.blocked_tasks.length > 0) {
    lines.push('', '## Blocked by the environment', '');
    for (const task of summary.blocked_tasks) lines.push(`- ${task.id} (${task.group}): ${task.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
