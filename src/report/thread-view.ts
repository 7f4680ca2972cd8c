import type { RunStatus } from '../agent/events.ts';
import type { GroundedNumber } from '../agent/grounding/types.ts';
import { parseInstructionPrompt, questionTitle } from '../agent/prompt/instruction.ts';
import {
  type CellStep,
  type RunView as LiveRunView,
  type NoteStep,
  type ProseStep,
  readRuns,
} from '../agent/view/steps.ts';
import type { Artifact } from '../sandbox/sandbox.ts';
import type { ThreadHistory } from './record.ts';

/**
 * A thread as every export shows it: per run, the steps in order (the model's prose, each
 * cell with its real result and files, notices) and how the run ended. It is the agent's
 * step view (`agent/view/steps.ts`) of the stored events, tidied for documents: prose
 * trimmed, the answer apart from the steps, cells that never existed left out.
 */

export type { CellStep, NoteStep, ProseStep };
export type Step = ProseStep | CellStep | NoteStep;

export interface RunView {
  runId: string;
  question: string;
  /** `unfinished` when no `run-end` was recorded (the run was interrupted, or still runs). */
  status: RunStatus | 'unfinished';
  reason?: string;
  answer?: string;
  /** The answer's numbers and whether each appears in what the run executed. */
  grounding?: GroundedNumber[];
  /** A cell the person edited and ran again (no model, no question): shown as a re-run, never as a question. */
  rerun?: true;
  steps: Step[];
}

export interface ThreadView {
  title: string;
  question: string;
  model: string;
  createdAt: string;
  runs: RunView[];
}

/** Splits a thread's events into runs and reads each one. */
export function readThread(record: ThreadHistory): ThreadView {
  return {
    // Threads titled by an older version with a DeepAnalyze-style prompt's `# Instruction` heading.
    title:
      (parseInstructionPrompt(record.title) ? questionTitle(record.title) : oneLine(record.title)) ||
      'Analysis',
    question: record.question,
    model: record.model,
    createdAt: record.createdAt,
    runs: readRuns(record.events).map((run) => forDocuments(run, record.question)),
  };
}

/** The run whose answer is the report's body: the last one with an answer, else the last. */
export function mainRunIndex(view: ThreadView): number {
  for (let i = view.runs.length - 1; i >= 0; i--) if (view.runs[i]!.answer !== undefined) return i;
  return view.runs.length - 1;
}

/** Every artifact of the thread, one entry per path (the latest), in the order first made. */
export function threadArtifacts(view: ThreadView): Artifact[] {
  const byPath = new Map<string, Artifact>();
  for (const run of view.runs) {
    for (const step of run.steps) {
      if (step.kind === 'cell') for (const artifact of step.artifacts) byPath.set(artifact.path, artifact);
    }
  }
  return [...byPath.values()];
}

function forDocuments(run: LiveRunView, threadQuestion: string): RunView {
  const steps: Step[] = [];
  for (const step of run.steps) {
    if (step.kind === 'answer') continue;
    if (step.kind === 'prose') {
      const text = step.text.trim();
      if (text) steps.push({ ...step, text });
    } else if (step.kind === 'cell') {
      if (step.code.trim() || step.result) steps.push(step);
    } else if (!(step.level === 'notice' && step.text === run.reason)) {
      // The loop repeats a cap's reason as a notice; the run's ending already says it.
      steps.push(step);
    }
  }
  const view: RunView = {
    runId: run.runId || 'run',
    question: run.question || threadQuestion,
    status: run.status === 'running' ? 'unfinished' : run.status,
    steps,
  };
  if (run.reason) view.reason = run.reason;
  if (run.protocol === 'cell') view.rerun = true;
  const answer = run.answer?.trim();
  if (answer) view.answer = answer;
  const final = run.steps.findLast((s) => s.kind === 'answer' && s.complete);
  if (answer && final?.kind === 'answer' && final.grounding) view.grounding = final.grounding;
  return view;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
