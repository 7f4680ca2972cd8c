import type { Artifact, ExecResult } from '../../sandbox/sandbox.ts';
import type { AgentEvent, RunCost, RunStatus, TokenCount } from '../events.ts';
import type { GroundedNumber } from '../grounding/types.ts';
import { extractCode } from '../transcript/tags.ts';
import { TagScanner, type TagToken } from './tag-scanner.ts';

/**
 * A run read from its events into the steps every front end shows: the model's prose, each
 * cell with its code, output, result and files, notices, and the answer. Reports, notebooks,
 * the terminal renderer, the SSE relay and the web UI all read these, never the transcript.
 *
 * The builder is incremental (push events as they arrive, read `steps`, react to the
 * updates `push` returns) and pure (no Node APIs), so the browser runs the same code.
 */

export interface ProseStep {
  kind: 'prose';
  tag: 'Analyze' | 'Understand';
  /** The text so far, as the model wrote it (trim it for display). */
  text: string;
  round: number;
}

/**
 * `writing`: the model is still writing the code; `ready`: written, not started yet;
 * `running`; `done` (see `result`); `refused` (see `refusal`); `not-run`: the run ended
 * before the cell ran (or its code was empty).
 */
export type CellState = 'writing' | 'ready' | 'running' | 'done' | 'refused' | 'not-run';

export interface CellStep {
  kind: 'cell';
  /** The cell's id; `text-N` for a cell the model wrote that never got one (it did not run). */
  cellId: string;
  language: 'python' | 'sql';
  /** The code (final once the cell started). */
  code: string;
  state: CellState;
  /** Output as it streamed (already capped by the sandbox); the whole of it is `result.output`. */
  output: string;
  result?: ExecResult;
  refusal?: string;
  /** Files the cell created or modified, one entry per path. */
  artifacts: Artifact[];
  /** Tools mode: the call that asked for this cell. */
  toolCallId?: string;
  round: number;
}

export interface NoteStep {
  kind: 'note';
  level: 'notice' | 'error';
  text: string;
  /** The error's stable code, for `error` notes. */
  code?: string;
  round: number;
}

export interface AnswerStep {
  kind: 'answer';
  text: string;
  /** True once the answer is final (`answer-end`). */
  complete: boolean;
  /** Its numbers and whether each appears in what the run executed (`answer-grounding`). */
  grounding?: GroundedNumber[];
  round: number;
}

export type Step = ProseStep | CellStep | NoteStep | AnswerStep;

/** `running` until the run's `run-end` arrives. */
export type RunViewStatus = RunStatus | 'running';

export interface RunView {
  runId: string;
  model: string;
  protocol: string;
  question: string;
  startedAt?: string;
  status: RunViewStatus;
  /** Why the run ended when it did not answer (cap, error, cancel). */
  reason?: string;
  /** The final answer, once there is one. */
  answer?: string;
  usage?: TokenCount;
  /** Model and cell time and peak cell memory, once the run ended (absent on older runs). */
  cost?: RunCost;
  durationMs?: number;
  /** The round of the latest event. */
  round: number;
  steps: Step[];
}

export type StepUpdate =
  | { type: 'step-added'; index: number }
  /** Text the model wrote, appended to a prose, answer or (while `writing`) cell step. */
  | { type: 'text-appended'; index: number; text: string }
  | { type: 'output-appended'; index: number; text: string }
  /** The model closed the section of a prose, answer or cell step (its text is complete). */
  | { type: 'section-closed'; index: number }
  | { type: 'step-changed'; index: number }
  /** Status, answer, reason, usage or round of the run changed. */
  | { type: 'run-changed' };

type SectionKind = 'Analyze' | 'Understand' | 'Code' | 'Answer' | 'hidden';

export class StepBuilder {
  readonly view: RunView = {
    runId: '',
    model: '',
    protocol: '',
    question: '',
    status: 'running',
    round: 0,
    steps: [],
  };
  private readonly scanner = new TagScanner();
  /** The section of model text being written, and the step it writes to. */
  private open: { kind: SectionKind; index?: number } | undefined;
  /** Raw text of Code sections, by step index (code is extracted from it). */
  private readonly rawCode = new Map<number, string>();
  private readonly byCell = new Map<string, number>();
  private pendingToolCall: { cellId: string; toolCallId: string } | undefined;
  private textCells = 0;
  /** Events stored by an older version (code-start without `in_text`). */
  private legacy = false;

  get steps(): Step[] {
    return this.view.steps;
  }

  push(event: AgentEvent): StepUpdate[] {
    const updates: StepUpdate[] = [];
    const view = this.view;
    if (event.round > view.round) {
      view.round = event.round;
      updates.push({ type: 'run-changed' });
    }
    switch (event.type) {
      case 'run-start':
        Object.assign(view, {
          runId: event.run_id,
          model: event.model,
          protocol: event.protocol,
          question: event.question,
          startedAt: event.at,
        });
        updates.push({ type: 'run-changed' });
        break;
      case 'text-delta':
        for (const token of this.scanner.push(event.text)) this.token(token, event.round, updates);
        break;
      case 'tool-call':
        this.pendingToolCall = { cellId: event.cell_id, toolCallId: event.tool_call_id };
        break;
      case 'code-start':
        this.codeStart(event, updates);
        break;
      case 'code-end':
        this.cell(event.cell_id, updates, (cell) => {
          cell.code = event.code;
          cell.language = event.language;
          if (cell.state === 'writing') cell.state = 'ready';
        });
        break;
      case 'execution-start':
        this.cell(event.cell_id, updates, (cell) => {
          cell.state = 'running';
        });
        break;
      case 'execution-output': {
        const index = this.byCell.get(event.cell_id);
        const cell = index === undefined ? undefined : view.steps[index];
        if (index !== undefined && cell?.kind === 'cell') {
          cell.output += event.text;
          updates.push({ type: 'output-appended', index, text: event.text });
        }
        break;
      }
      case 'execution-end':
        this.cell(event.cell_id, updates, (cell) => {
          cell.state = 'done';
          cell.result = event.result;
          cell.output = event.result.output;
          for (const artifact of event.result.artifacts) addArtifact(cell, artifact);
        });
        break;
      case 'artifact-created':
        this.cell(event.cell_id, updates, (cell) => addArtifact(cell, event.artifact));
        break;
      case 'execution-refused':
        this.cell(event.cell_id, updates, (cell) => {
          cell.state = 'refused';
          cell.refusal = event.reason;
        });
        break;
      case 'notice':
      case 'error': {
        const note: NoteStep =
          event.type === 'notice'
            ? { kind: 'note', level: 'notice', text: event.message, round: event.round }
            : { kind: 'note', level: 'error', text: event.message, code: event.code, round: event.round };
        this.add(note, updates);
        break;
      }
      case 'answer-end': {
        const last = view.steps.findLastIndex((s) => s.kind === 'answer');
        const step = view.steps[last];
        if (step?.kind === 'answer') {
          step.text = event.text;
          step.complete = true;
          updates.push({ type: 'step-changed', index: last });
        } else {
          this.add({ kind: 'answer', text: event.text, complete: true, round: event.round }, updates);
        }
        view.answer = event.text;
        updates.push({ type: 'run-changed' });
        break;
      }
      case 'answer-grounding': {
        const last = view.steps.findLastIndex((s) => s.kind === 'answer');
        const step = view.steps[last];
        if (step?.kind === 'answer') {
          step.grounding = event.numbers;
          updates.push({ type: 'step-changed', index: last });
        }
        break;
      }
      case 'run-end':
        for (const token of this.scanner.flush()) this.token(token, event.round, updates);
        this.closeSection(updates);
        view.status = event.status;
        view.usage = event.usage;
        view.durationMs = event.duration_ms;
        if (event.cost) view.cost = event.cost;
        if (event.reason) view.reason = event.reason;
        if (view.answer === undefined && event.answer !== undefined) view.answer = event.answer;
        view.steps.forEach((step, index) => {
          if (step.kind === 'cell' && (step.state === 'writing' || step.state === 'ready')) {
            step.state = 'not-run';
            updates.push({ type: 'step-changed', index });
          }
        });
        updates.push({ type: 'run-changed' });
        break;
      default:
        break;
    }
    return updates;
  }

  private codeStart(event: Extract<AgentEvent, { type: 'code-start' }>, updates: StepUpdate[]): void {
    const toolCallId =
      this.pendingToolCall?.cellId === event.cell_id ? this.pendingToolCall.toolCallId : undefined;
    this.pendingToolCall = undefined;
    // The model's own <Code> section for this cell is the latest one that has no cell yet.
    // Runs stored before `in_text` existed: a waiting <Code> section is this cell's.
    if (event.in_text === undefined) this.legacy = true;
    const written =
      event.in_text !== false
        ? this.view.steps.findLastIndex((s) => s.kind === 'cell' && s.cellId.startsWith('text-'))
        : -1;
    const step = this.view.steps[written];
    if (step?.kind === 'cell' && (step.state === 'writing' || step.state === 'ready')) {
      step.cellId = event.cell_id;
      step.language = event.language;
      this.byCell.set(event.cell_id, written);
      updates.push({ type: 'step-changed', index: written });
      return;
    }
    // A cell of its own ends the prose before it (tools mode writes no closing tags).
    this.closeSection(updates);
    const cell: CellStep = {
      kind: 'cell',
      cellId: event.cell_id,
      language: event.language,
      code: '',
      state: 'ready',
      output: '',
      artifacts: [],
      round: event.round,
      ...(toolCallId ? { toolCallId } : {}),
    };
    this.byCell.set(event.cell_id, this.add(cell, updates));
  }

  private cell(cellId: string, updates: StepUpdate[], change: (cell: CellStep) => void): void {
    const index = this.byCell.get(cellId);
    const step = index === undefined ? undefined : this.view.steps[index];
    if (index === undefined || step?.kind !== 'cell') return;
    change(step);
    updates.push({ type: 'step-changed', index });
  }

  private token(token: TagToken, round: number, updates: StepUpdate[]): void {
    if (token.kind !== 'text') {
      if (token.kind === 'close') {
        if (this.open && (this.open.kind === token.tag || this.open.kind === 'hidden'))
          this.closeSection(updates);
        return;
      }
      this.closeSection(updates);
      // Execution blocks come from execution events; one the model writes itself is ignored.
      this.open =
        token.tag === 'Execute' || token.tag === 'File'
          ? { kind: 'hidden' }
          : { kind: token.tag, index: this.startSection(token.tag, round, updates) };
      return;
    }
    if (this.open?.kind === 'hidden') return;
    if (!this.open) {
      // Text outside any tag is prose (models think aloud before their first tag).
      if (token.text.trim() === '') return;
      this.open = { kind: 'Analyze', index: this.startSection('Analyze', round, updates) };
    }
    const index = this.open.index!;
    const step = this.view.steps[index]!;
    if (step.kind === 'cell') {
      const raw = (this.rawCode.get(index) ?? '') + token.text;
      this.rawCode.set(index, raw);
      step.code = extractCode(raw);
    } else if (step.kind === 'prose' || step.kind === 'answer') {
      step.text += token.text;
    }
    updates.push({ type: 'text-appended', index, text: token.text });
  }

  private closeSection(updates: StepUpdate[]): void {
    const open = this.open;
    this.open = undefined;
    if (open?.index !== undefined) updates.push({ type: 'section-closed', index: open.index });
    if (open?.kind !== 'Code' || open.index === undefined) return;
    const step = this.view.steps[open.index];
    if (step?.kind !== 'cell' || step.state !== 'writing') return;
    step.state = 'ready';
    updates.push({ type: 'step-changed', index: open.index });
    // Runs stored before cells were events of their own wrote a <Code> block after each
    // tool or offline cell: that echo of the cell before it is not a cell.
    const before = this.view.steps[open.index - 1];
    if (this.legacy && before?.kind === 'cell' && before.code.trim() === step.code.trim()) {
      this.view.steps.splice(open.index, 1);
      this.rawCode.delete(open.index);
    }
  }

  private startSection(tag: Exclude<SectionKind, 'hidden'>, round: number, updates: StepUpdate[]): number {
    if (tag === 'Code') {
      this.textCells += 1;
      return this.add(
        {
          kind: 'cell',
          cellId: `text-${this.textCells}`,
          language: 'python',
          code: '',
          state: 'writing',
          output: '',
          artifacts: [],
          round,
        },
        updates,
      );
    }
    if (tag === 'Answer') return this.add({ kind: 'answer', text: '', complete: false, round }, updates);
    return this.add({ kind: 'prose', tag, text: '', round }, updates);
  }

  private add(step: Step, updates: StepUpdate[]): number {
    const index = this.view.steps.push(step) - 1;
    updates.push({ type: 'step-added', index });
    return index;
  }
}

function addArtifact(cell: CellStep, artifact: Artifact): void {
  const at = cell.artifacts.findIndex((a) => a.path === artifact.path);
  if (at === -1) cell.artifacts.push(artifact);
  else cell.artifacts[at] = artifact;
}

/** One run's events read into its view. */
export function readRun(events: Iterable<AgentEvent>): RunView {
  const builder = new StepBuilder();
  for (const event of events) builder.push(event);
  return builder.view;
}

/** A thread's events (one or more runs, each starting with `run-start`) read into views. */
export function readRuns(events: Iterable<AgentEvent>): RunView[] {
  const runs: RunView[] = [];
  let builder: StepBuilder | undefined;
  for (const event of events) {
    if (event.type === 'run-start' || !builder) {
      builder = new StepBuilder();
      runs.push(builder.view);
    }
    builder.push(event);
  }
  return runs;
}
