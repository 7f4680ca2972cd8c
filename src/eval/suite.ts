/**
 * What an evaluation suite is (docs/spec.md#evaluation), independent of how tasks are run. Types only.
 *
 * A suite loads its tasks from the data the user gives (`--data`), says what the agent is
 * asked and which files its workspace starts with, reads the answer out of a finished run
 * or out of an answers file (`--answers`), and scores an answer as its authors do. The
 * runner (`runner.ts`) does the rest: workers, traces, results.jsonl, resume, summary.
 */
import type { AgentEvent, RunStatus } from '../agent/events.ts';
import type { TaskPool } from '../sandbox/sandbox.ts';
import type { Judge } from './judge.ts';

/** How a task ended: `blocked` means the environment cannot run it (never a failure). */
export type TaskStatus = 'passed' | 'failed' | 'blocked' | 'error';

export interface EvalTask {
  /** Unique within the suite (DS-1000: the problem_id). */
  id: string;
  /** What the summary groups by (DS-1000: the library; TableBench: the question type). */
  group: string;
}

/** A file the agent's workspace starts with. */
export type TaskFile = { name: string; path: string } | { name: string; content: string };

export interface TaskPrompt {
  /** The user message the agent gets. */
  question: string;
  files: TaskFile[];
}

/** What an agent run left behind, as a suite sees it. */
export interface AgentOutcome {
  status: RunStatus;
  reason?: string;
  /** The body of the final answer, when there was one. */
  answer?: string;
  transcript: string;
  events: AgentEvent[];
  tokens: number;
}

/** A score and why. `detail` goes into the task's trace (and `extra` fields into results.jsonl). */
export interface Verdict {
  status: TaskStatus;
  reason: string;
  detail?: Record<string, unknown>;
  /** Fields added to the task's results.jsonl line (e.g. a judge's score). */
  extra?: Record<string, unknown>;
}

/** What the runner provides to scorers. */
export interface ScoringContext {
  /** Warm sandboxes for suites that score by running programs (made from `Suite.taskPool`). */
  taskPool?: TaskPool;
  /** The judge model, for judged suites. */
  judge?: Judge;
  abortSignal?: AbortSignal;
}

export interface Suite<T extends EvalTask = EvalTask> {
  name: string;
  /** One line for `--help` and the summary. */
  title: string;
  /** What `--data` must point at, for the error when it is missing or wrong. */
  dataHint: string;
  /** Judged suites refuse to run without `--judge MODEL`. */
  needsJudge?: boolean;
  /** Scoring runs programs: a task pool with these modules preloaded is made for it. */
  taskPool?: { preloadModules: readonly string[] };
  load(dataPath: string): Promise<T[]>;
  /**
   * Called once before any task, with the scoring context (e.g. to find which modules the
   * image has). Returns notes for the summary.
   */
  prepare?(context: ScoringContext, tasks: readonly T[]): Promise<void>;
  /** Why the environment cannot run this task, or undefined. Asked after `prepare`. */
  blocked?(task: T): string | undefined;
  prompt(task: T): TaskPrompt;
  /** The answer from an agent run (undefined: the run gave none). */
  answerOf(task: T, outcome: AgentOutcome): string | undefined;
  /** Answers from `--answers FILE`, by task id. */
  readAnswers(path: string): Promise<Map<string, string>>;
  /** The suite's own reference answers (`--answers reference`), where it ships them. */
  referenceAnswers?(tasks: readonly T[]): Map<string, string>;
  score(task: T, answer: string | undefined, context: ScoringContext): Promise<Verdict>;
  /** Fields of the task copied into its results.jsonl line (e.g. DS-1000's perturbation type). */
  fields?(task: T): Record<string, string>;
  /** Which of those fields the summary tabulates besides `group` (e.g. `perturbation_type`). */
  breakdowns?: readonly string[];
  /** Writes suite-specific files at the end (e.g. a leaderboard submission); returns their names. */
  finish?(outDir: string, done: ReadonlyArray<{ task: T; answer: string | undefined }>): Promise<string[]>;
}
