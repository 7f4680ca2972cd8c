import type { AgentEvent, RunCost } from '../../agent/events.ts';
import { type CellStep, StepBuilder, type StepUpdate } from '../../agent/view/steps.ts';
import type { GroundedNumber } from '../../contract/grounding.ts';
import { Spinner } from './spinner.ts';
import { MarkdownStream } from './terminal-markdown.ts';

const STYLE = {
  dim: '\u001b[2m',
  bold: '\u001b[1m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  blue: '\u001b[34m',
  magenta: '\u001b[35m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
} as const;
type Style = keyof typeof STYLE;

/** A line of streamed code that may still become a Markdown fence, and one that is. */
const FENCE_START = /^\s*(`{1,2}|```[\w+-]*)$/;
const FENCE = /^\s*```[\w+-]*\s*$/;

const SECTION: Record<string, { label: string; style: Style }> = {
  Analyze: { label: 'Analyze', style: 'blue' },
  Understand: { label: 'Understand', style: 'magenta' },
  Answer: { label: 'Answer', style: 'green' },
};

export interface RunRendererOptions {
  color: boolean;
  /** Show a spinner with the elapsed time while a cell runs (terminals only). Default false. */
  spinner?: boolean;
  /** Start with a line naming the model, its protocol and the run (`analyst run`). Default false. */
  header?: boolean;
  /**
   * Lines of code shown per cell before "… N more lines": long code (the offline analyst's
   * loader cell) is folded by default. Default 12; `Infinity` shows all (`--show-code`).
   */
  maxCodeLines?: number;
  now?: () => number;
}

/**
 * The one terminal renderer of a run, for `analyst chat` and `analyst run`. It prints the run
 * as it streams, from its steps (`agent/view/steps.ts`), never from the model's tags: each
 * section under a coloured heading (Analyze, Understand, Answer) with its Markdown rendered
 * for the terminal, each cell's code once behind a `│` gutter (folded when long) apart from
 * its output (dimmed), its status and files, a line on the answer's grounding, and one line
 * for how the run ended (a cancelled cell leaves that line alone to say it). While a cell
 * runs, an optional spinner shows the time so far.
 */
export class RunRenderer {
  private readonly builder = new StepBuilder();
  private readonly spinner: Spinner | undefined;
  private readonly maxCodeLines: number;
  private atLineStart = true;
  /** Whitespace at the end of streamed text, written only if more text follows. */
  private pending = '';
  /** The step whose text is streaming, so a new heading is printed only for a new step. */
  private streaming: number | undefined;
  private readonly cells = new Map<number, { code: boolean; state: string; files: number }>();
  /** The Markdown of the section streaming (none for code). */
  private markdown: MarkdownStream | undefined;
  /** Lines of the streaming cell's code printed so far, and whether the last one is open. */
  private codeLines = { shown: 0, open: false, held: '' };

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: RunRendererOptions,
  ) {
    this.maxCodeLines = options.maxCodeLines ?? 12;
    if (options.spinner)
      this.spinner = new Spinner((text) => this.write(text), { color: options.color, now: options.now });
  }

  /** The answer of the run, once it has one. */
  get answer(): string | undefined {
    return this.builder.view.answer;
  }

  push(event: AgentEvent): void {
    if (event.type === 'run-start' && this.options.header)
      this.line(this.paint('dim', `analyst: ${event.model} (${event.protocol}) — ${event.run_id}`));
    for (const update of this.builder.push(event)) this.apply(update);
    if (event.type === 'answer-grounding') this.grounding(event.numbers);
    if (event.type === 'run-end') {
      this.endStream();
      this.spinner?.stop();
      const style: Style =
        event.status === 'completed' ? 'green' : event.status === 'cancelled' ? 'yellow' : 'red';
      const seconds = (event.duration_ms / 1000).toFixed(1);
      const rounds = `${event.round} round${event.round === 1 ? '' : 's'}`;
      const tokens = event.usage.total_tokens ? `, ${event.usage.total_tokens} tokens` : '';
      // A cancelled run needs no reason: the user stopped it, and this line is the one saying so.
      const why =
        event.reason && event.status !== 'completed' && event.status !== 'cancelled'
          ? ` — ${event.reason}`
          : '';
      this.line(this.paint(style, `── ${event.status} in ${seconds} s (${rounds}${tokens})${why}`));
      if (event.cost) this.line(this.paint('dim', `   ${costLine(event.cost)}`));
    }
  }

  /** Stops the spinner (the session prints something of its own). */
  pause(): void {
    this.spinner?.stop();
  }

  private apply(update: StepUpdate): void {
    if (update.type === 'run-changed') return;
    const step = this.builder.steps[update.index];
    if (!step) return;
    switch (update.type) {
      case 'step-added':
        if (step.kind === 'note') {
          this.endStream();
          const style: Style = step.level === 'error' ? 'red' : 'yellow';
          const label = step.level === 'error' ? `error${step.code ? ` (${step.code})` : ''}` : 'note';
          this.line(this.paint(style, `${label}: ${step.text}`));
        } else if (step.kind === 'cell') {
          this.cells.set(update.index, { code: false, state: '', files: 0 });
          if (step.state === 'writing') this.heading(update.index, 'Code', 'yellow');
        } else {
          const section = SECTION[step.kind === 'answer' ? 'Answer' : step.tag]!;
          this.heading(update.index, section.label, section.style);
        }
        break;
      case 'text-appended':
        if (this.streaming === update.index) {
          if (step.kind === 'cell') {
            this.streamCode(update.text);
            this.cells.get(update.index)!.code = true;
          } else {
            this.stream(this.markdown?.push(update.text) ?? update.text);
          }
        }
        break;
      case 'section-closed':
        if (this.streaming === update.index) this.endStream(step.kind === 'cell' ? step.code : undefined);
        break;
      case 'output-appended':
        // The spinner steps aside for the output and comes back under it while the cell still runs.
        this.text(this.paint('dim', update.text));
        break;
      case 'step-changed':
        if (step.kind === 'cell') this.cellChanged(update.index, step);
        break;
    }
  }

  private cellChanged(index: number, cell: CellStep): void {
    const seen = this.cells.get(index) ?? { code: false, state: '', files: 0 };
    this.cells.set(index, seen);
    if (cell.state !== 'writing' && this.streaming === index) this.endStream(cell.code);
    if ((cell.state === 'running' || cell.state === 'refused') && !seen.code) {
      this.code(cell.code);
      seen.code = true;
    }
    if (cell.state !== seen.state) {
      if (cell.state === 'running') this.spinner?.start('running cell');
      if (cell.state === 'refused') this.line(this.paint('red', `── refused: ${cell.refusal}`));
      if (cell.state === 'done' && cell.result?.status === 'cancelled') {
        // The run's own line follows ("── cancelled in …"): one line says it (issue 31, defect 9).
        this.spinner?.stop();
      } else if (cell.state === 'done' && cell.result) {
        this.spinner?.stop();
        const { status, duration_ms: ms, message } = cell.result;
        const style: Style = status === 'ok' ? 'green' : 'red';
        this.line(this.paint(style, `── ${status} in ${formatDuration(ms)}${message ? `: ${message}` : ''}`));
      }
      seen.state = cell.state;
    }
    for (const artifact of cell.artifacts.slice(seen.files))
      this.line(
        this.paint('cyan', `   ${artifact.change}: ${artifact.path} (${formatBytes(artifact.bytes)})`),
      );
    seen.files = cell.artifacts.length;
  }

  /** One line under the answer: whether its numbers appear in what the run executed. */
  private grounding(numbers: GroundedNumber[]): void {
    const claims = numbers.filter((n) => n.status !== 'ignored');
    if (claims.length === 0) return;
    this.endStream();
    const flagged = claims.filter((n) => n.status === 'ungrounded');
    const ungrounded = [...new Set(flagged.map((n) => n.text))];
    if (ungrounded.length === 0) {
      this.line(
        this.paint('dim', `grounding: all ${claims.length} numbers of the answer come from the outputs`),
      );
      return;
    }
    const shown = ungrounded.length > 12 ? [...ungrounded.slice(0, 12), '…'] : ungrounded;
    this.line(
      this.paint(
        'yellow',
        `grounding: ${flagged.length} of ${claims.length} numbers appear in no output: ${shown.join(', ')}`,
      ),
    );
  }

  private heading(index: number, label: string, style: Style): void {
    this.endStream();
    this.line(this.paint(style, this.paint('bold', `▍${label}`)));
    this.streaming = index;
    this.pending = '';
    this.startOfSection = true;
    this.markdown = label === 'Code' ? undefined : new MarkdownStream(this.options.color);
    this.codeLines = { shown: 0, open: false, held: '' };
  }

  private startOfSection = false;

  /** Streamed model text: leading blank lines of a section dropped, trailing ones held back. */
  private stream(text: string): void {
    let body = text;
    if (this.startOfSection) {
      body = body.replace(/^\s+/, '');
      if (!body) return;
      this.startOfSection = false;
    }
    const trimmed = body.trimEnd();
    const trailing = body.slice(trimmed.length);
    if (trimmed) {
      this.text(this.pending + trimmed);
      this.pending = '';
    }
    this.pending += trailing;
  }

  /** Ends the streaming section: the Markdown still held, or the fold of a long cell (`code`). */
  private endStream(code?: string): void {
    if (this.streaming === undefined) return;
    const rest = this.markdown?.end();
    if (rest) this.stream(rest);
    const held = this.codeLines.held;
    this.codeLines.held = '';
    if (held && !FENCE.test(held)) this.codePiece(held, false);
    this.streaming = undefined;
    this.markdown = undefined;
    this.pending = '';
    if (!this.atLineStart) this.text('\n');
    if (code !== undefined) this.fold(code.trimEnd().split('\n').length - this.codeLines.shown);
  }

  /** Code the model writes, line by line behind the gutter, up to the fold. */
  private streamCode(text: string): void {
    let body = text;
    if (this.startOfSection) {
      body = body.replace(/^\s*\n/, '');
      if (!body) return;
      this.startOfSection = false;
    }
    for (const [i, piece] of body.split('\n').entries()) {
      if (i > 0) this.endCodeLine();
      this.codePiece(piece);
    }
  }

  /**
   * A piece of the current line of code. A line that may be a Markdown fence (a model often
   * writes ```python inside <Code>) is held until it ends: a fence is not code, and the fold
   * counts the cell's code, which has none.
   */
  private codePiece(piece: string, hold = true): void {
    if (!piece) return;
    if (!this.codeLines.open) {
      const line = this.codeLines.held + piece;
      this.codeLines.held = '';
      if (hold && FENCE_START.test(line)) {
        this.codeLines.held = line;
        return;
      }
      if (this.codeLines.shown >= this.maxCodeLines) return;
      this.codeLines.shown += 1;
      this.codeLines.open = true;
      this.text(this.paint('dim', `│ ${line}`));
      return;
    }
    this.text(this.paint('dim', piece));
  }

  private endCodeLine(): void {
    const held = this.codeLines.held;
    if (held) {
      this.codeLines.held = '';
      if (FENCE.test(held)) return;
      this.codePiece(held, false);
    }
    if (this.codeLines.open) this.text('\n');
    else if (this.codeLines.shown < this.maxCodeLines) {
      // An empty line of the code, kept: the fold counts every line.
      this.codeLines.shown += 1;
      this.text(`${this.paint('dim', '│')}\n`);
    }
    this.codeLines.open = false;
  }

  private code(code: string): void {
    const lines = code.trimEnd().split('\n');
    this.line(this.paint('yellow', this.paint('bold', '▍Code')));
    for (const line of lines.slice(0, this.maxCodeLines)) this.line(this.paint('dim', `│ ${line}`));
    this.fold(lines.length - this.maxCodeLines);
  }

  private fold(more: number): void {
    if (more > 0)
      this.line(
        this.paint('dim', `│ … ${more} more line${more === 1 ? '' : 's'} (--show-code shows all code)`),
      );
  }

  private paint(style: Style, text: string): string {
    return this.options.color ? `${STYLE[style]}${text}${STYLE.reset}` : text;
  }

  private text(text: string): void {
    if (!text) return;
    this.spinner?.clear();
    this.write(text);
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
    this.atLineStart = plain.endsWith('\n');
    if (this.atLineStart) this.spinner?.redraw();
  }

  private line(text: string): void {
    this.text(`${this.atLineStart ? '' : '\n'}${text}\n`);
  }
}

/** What a run cost besides its tokens, in one line: `model 0.3 s · 2 cells 3.1 s · peak memory 84.0 MB`. */
export function costLine(cost: RunCost): string {
  return [
    `model ${formatDuration(cost.model_ms)}`,
    `${cost.cells} cell${cost.cells === 1 ? '' : 's'} ${formatDuration(cost.cells_ms)}`,
    ...(cost.peak_memory_bytes !== null ? [`peak memory ${formatBytes(cost.peak_memory_bytes)}`] : []),
  ].join(' · ');
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
