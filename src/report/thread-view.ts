import type { AgentEvent, RunStatus } from '../agent/events.ts';
import { extractCode, parseSections, type Section } from '../agent/transcript/tags.ts';
import type { Artifact, ExecResult } from '../sandbox/sandbox.ts';
import type { RunRecord } from './record.ts';

/**
 * A thread read from its events into what every export shows: per run, the steps in order
 * (the model's prose between cells, each cell with its real result and files, notices) and
 * how the run ended. Markdown, HTML and notebook exports are all views of this.
 */

export interface ProseStep {
  kind: 'prose';
  tag: 'Analyze' | 'Understand';
  text: string;
}

export interface CellStep {
  kind: 'cell';
  cellId: string;
  language: 'python' | 'sql';
  /** The exact code that ran. */
  code: string;
  /** The sandbox's result; absent when the run ended before the cell finished. */
  result?: ExecResult;
  /** Output read from the transcript's `<Execute>` block, used only when `result` is absent. */
  transcriptOutput?: string;
  /** Files the cell created or modified, in order, one entry per path. */
  artifacts: Artifact[];
}

export interface NoteStep {
  kind: 'note';
  level: 'notice' | 'error';
  text: string;
  /** The error's stable code, for `error` notes. */
  code?: string;
}

export type Step = ProseStep | CellStep | NoteStep;

export interface RunView {
  runId: string;
  question: string;
  /** `unfinished` when no `run-end` was recorded (the run was interrupted). */
  status: RunStatus | 'unfinished';
  reason?: string;
  answer?: string;
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
export function readThread(record: RunRecord): ThreadView {
  const groups: AgentEvent[][] = [];
  for (const event of record.events) {
    if (event.type === 'run-start' || groups.length === 0) groups.push([]);
    groups[groups.length - 1]!.push(event);
  }
  return {
    title: oneLine(record.title) || 'Analysis',
    question: record.question,
    model: record.model,
    createdAt: record.createdAt,
    runs: groups.map((events, index) => readRun(events, index, record.question)),
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

function readRun(events: AgentEvent[], index: number, threadQuestion: string): RunView {
  const start = events.find((e) => e.type === 'run-start');
  const end = events.findLast((e) => e.type === 'run-end');
  let transcript = events.map((e) => (e.type === 'text-delta' ? e.text : '')).join('');
  const streamed = transcript.trim() !== '';
  if (!streamed && end) transcript = end.transcript;

  const cells = cellsOf(events);
  const sections = parseSections(transcript);
  const steps = sections.some((s) => s.tag === 'Code')
    ? pairWithSections(sections, cells, events, streamed)
    : interleaveByOrder(events, cells, streamed ? '' : transcript);

  const answerEvent = events.findLast((e) => e.type === 'answer-end');
  let answer = answerEvent?.text ?? end?.answer;
  // Without structured answers (older records), a complete <Answer> section still counts.
  if (answer === undefined && (!end || end.status === 'completed')) {
    const answers = sections.filter((s) => s.tag === 'Answer' && s.closed);
    answer = answers[answers.length - 1]?.content;
  }
  const run: RunView = {
    runId: start?.run_id ?? `run-${index + 1}`,
    question: start?.question ?? threadQuestion,
    status: end?.status ?? 'unfinished',
    // The loop repeats a cap's reason as a notice; the run's ending already says it.
    steps: steps.filter((s) => !(s.kind === 'note' && s.level === 'notice' && s.text === end?.reason)),
  };
  if (end?.reason) run.reason = end.reason;
  if (answer?.trim()) run.answer = answer.trim();
  return run;
}

/** Cells in the order their code was final, each with its result and files. */
function cellsOf(events: AgentEvent[]): CellStep[] {
  const cells = new Map<string, CellStep>();
  for (const event of events) {
    if (event.type === 'code-end') {
      cells.set(event.cell_id, {
        kind: 'cell',
        cellId: event.cell_id,
        language: event.language,
        code: event.code,
        artifacts: [],
      });
    } else if (event.type === 'execution-end') {
      const cell = cells.get(event.cell_id);
      if (cell) {
        cell.result = event.result;
        for (const artifact of event.result.artifacts) addArtifact(cell, artifact);
      }
    } else if (event.type === 'artifact-created') {
      const cell = cells.get(event.cell_id);
      if (cell) addArtifact(cell, event.artifact);
    }
  }
  return [...cells.values()];
}

function addArtifact(cell: CellStep, artifact: Artifact): void {
  const at = cell.artifacts.findIndex((a) => a.path === artifact.path);
  if (at === -1) cell.artifacts.push(artifact);
  else cell.artifacts[at] = artifact;
}

/**
 * Transcripts with `<Code>` sections (tag protocols, and tools mode, which writes each call
 * as a Code/Execute block after it ran): prose keeps its place, and each Code section is
 * matched to the next cell with the same code. A Code section that matches no cell did not
 * run (a refused call, or the run stopped first) and is shown from the transcript with
 * its `<Execute>` text; an empty one is skipped (a notice says so). Cells that match no
 * section still appear, in order.
 */
function pairWithSections(
  sections: Section[],
  cells: CellStep[],
  events: AgentEvent[],
  streamed: boolean,
): Step[] {
  // Without deltas there is no telling where a note happened: they all go last.
  const notes = streamed
    ? notesBySection(events)
    : new Map([[sections.length, notesBySection(events).get(0) ?? []]]);
  const steps: Step[] = [...(notes.get(0) ?? [])];
  let next = 0;
  let unrun: CellStep | undefined;
  sections.forEach((section, index) => {
    if (section.tag === 'Analyze' || section.tag === 'Understand') {
      if (section.content) steps.push({ kind: 'prose', tag: section.tag, text: section.content });
    } else if (section.tag === 'Code') {
      unrun = undefined;
      const code = extractCode(section.content);
      const at = cells.findIndex((cell, i) => i >= next && cell.code.trim() === code.trim());
      if (at >= 0) {
        steps.push(...cells.slice(next, at + 1));
        next = at + 1;
      } else if (code.trim()) {
        const language = /^\s*```sql\b/i.test(section.content) ? 'sql' : 'python';
        unrun = { kind: 'cell', cellId: `unrun-${index + 1}`, language, code, artifacts: [] };
        steps.push(unrun);
      }
    } else if (section.tag === 'Execute' && unrun && unrun.transcriptOutput === undefined) {
      unrun.transcriptOutput = extractCode(section.content);
    }
    steps.push(...(notes.get(index + 1) ?? []));
    notes.delete(index + 1);
  });
  steps.push(...cells.slice(next));
  for (const [position, rest] of notes) if (position > 0) steps.push(...rest);
  return steps;
}

/**
 * Notices and errors, keyed by how many transcript sections had been written when each
 * happened, so that each is shown after the section it followed.
 */
function notesBySection(events: AgentEvent[]): Map<number, NoteStep[]> {
  const notes = new Map<number, NoteStep[]>();
  let text = '';
  for (const event of events) {
    if (event.type === 'text-delta') text += event.text;
    const note = noteOf(event);
    if (!note) continue;
    const position = parseSections(text).length;
    notes.set(position, [...(notes.get(position) ?? []), note]);
  }
  return notes;
}

/**
 * Tools mode: code arrives as tool calls, not in the transcript, so prose and cells are
 * placed in the order their events happened. `unplaced` is prose known only from the
 * stored transcript (no deltas were recorded): it goes first.
 */
function interleaveByOrder(events: AgentEvent[], cells: CellStep[], unplaced: string): Step[] {
  const byId = new Map(cells.map((cell) => [cell.cellId, cell]));
  const steps: Step[] = [];
  const placed = new Set<CellStep>();
  let text = unplaced;
  const flush = () => {
    for (const section of parseSections(text)) {
      if ((section.tag === 'Analyze' || section.tag === 'Understand') && section.content) {
        steps.push({ kind: 'prose', tag: section.tag, text: section.content });
      }
    }
    text = '';
  };
  for (const event of events) {
    if (event.type === 'text-delta') text += event.text;
    const note = noteOf(event);
    const found = event.type === 'code-end' ? byId.get(event.cell_id) : undefined;
    const cell = found && !placed.has(found) ? found : undefined;
    if (note || cell) flush();
    if (note) steps.push(note);
    if (cell) {
      placed.add(cell);
      steps.push(cell);
    }
  }
  flush();
  return steps;
}

function noteOf(event: AgentEvent): NoteStep | undefined {
  if (event.type === 'notice') return { kind: 'note', level: 'notice', text: event.message };
  if (event.type === 'error') return { kind: 'note', level: 'error', text: event.message, code: event.code };
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
