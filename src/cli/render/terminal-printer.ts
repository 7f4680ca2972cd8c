import type { AgentEvent } from '../../agent/events.ts';
import type { GroundedNumber } from '../../agent/grounding/types.ts';
import { type CellStep, StepBuilder, type StepUpdate } from '../../agent/view/steps.ts';

const STYLE = {
  dim: '\u001b[2m',
  bold: '\u001b[1m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
};

export interface TerminalPrinterOptions {
  /**
   * Code that was not streamed as model text (the offline analyst's cells, tool calls) is
   * printed when the cell starts, cut after this many lines. Default 20.
   */
  maxCodeLines?: number;
}

/**
 * Prints an analysis as it streams, from its steps (`agent/view/steps.ts`): the model's
 * sections as they come, with their tags; each cell's code once (as the model writes it,
 * or whole when it starts), its output dimmed, its status and files in colour (when the
 * terminal has colour).
 */
export class TerminalPrinter {
  private readonly builder = new StepBuilder();
  private readonly maxCodeLines: number;
  private atLineStart = true;
  /** The last thing written was a status line: whitespace the model wrote next is dropped. */
  private afterStatusLine = true;
  /** Trailing whitespace of model text, written only if visible text follows. */
  private pendingSpace = '';
  /** The step whose section is open (its closing tag not printed yet). */
  private openSection: { index: number; tag: string } | undefined;
  /** How much of each cell was printed: its code, its state, its files. */
  private readonly printed = new Map<number, { code: boolean; state: string; files: number }>();

  constructor(
    private readonly write: (text: string) => void,
    private readonly color: boolean,
    options: TerminalPrinterOptions = {},
  ) {
    this.maxCodeLines = options.maxCodeLines ?? 20;
  }

  print(event: AgentEvent): void {
    if (event.type === 'run-start')
      this.line(this.paint('dim', `analyst: ${event.model} (${event.protocol}) — ${event.run_id}`));
    for (const update of this.builder.push(event)) this.apply(update);
    if (event.type === 'answer-grounding') this.grounding(event.numbers);
    if (event.type === 'run-end') {
      this.closeSection();
      const colour = event.status === 'completed' ? 'green' : event.status === 'cancelled' ? 'yellow' : 'red';
      const tokens = event.usage.total_tokens ? `, ${event.usage.total_tokens} tokens` : '';
      this.line(
        this.paint(
          colour,
          `run ${event.status} after ${event.round} round(s), ${Math.round(event.duration_ms / 1000)} s${tokens}`,
        ) + (event.reason ? ` — ${event.reason}` : ''),
      );
    }
  }

  private apply(update: StepUpdate): void {
    if (update.type === 'run-changed') return;
    const step = this.builder.steps[update.index];
    if (!step) return;
    switch (update.type) {
      case 'step-added':
        this.closeSection();
        if (step.kind === 'note') {
          const [style, label] =
            step.level === 'error'
              ? (['red', `error (${step.code})`] as const)
              : (['yellow', 'note'] as const);
          this.line(this.paint(style, `${label}: ${step.text}`));
        } else if (step.kind === 'cell') {
          // Code the model writes in its text is printed as it comes, so never again.
          this.printed.set(update.index, { code: step.state === 'writing', state: step.state, files: 0 });
          if (step.state === 'writing') this.openTag(update.index, 'Code');
        } else {
          this.openTag(update.index, step.kind === 'answer' ? 'Answer' : step.tag);
        }
        break;
      case 'text-appended':
        if (this.openSection?.index === update.index) this.modelText(update.text);
        break;
      case 'section-closed':
        if (this.openSection?.index === update.index) this.closeSection();
        break;
      case 'output-appended':
        this.text(this.paint('dim', update.text));
        break;
      case 'step-changed':
        if (step.kind === 'cell') this.cellChanged(update.index, step);
        break;
    }
  }

  private cellChanged(index: number, cell: CellStep): void {
    const seen = this.printed.get(index) ?? { code: false, state: '', files: 0 };
    this.printed.set(index, seen);
    if (cell.state === seen.state && cell.artifacts.length === seen.files) return;
    if (cell.state !== 'writing' && this.openSection?.index === index) this.closeSection();
    if ((cell.state === 'running' || cell.state === 'refused') && !seen.code) {
      this.code(cell.language, cell.code);
      seen.code = true;
    }
    if (cell.state !== seen.state) {
      if (cell.state === 'running') this.line(this.paint('dim', '── running ──'));
      if (cell.state === 'refused') this.line(this.paint('red', `── refused: ${cell.refusal} ──`));
      if (cell.state === 'done' && cell.result) {
        const { status, duration_ms: ms, message } = cell.result;
        const colour = status === 'ok' ? 'green' : 'red';
        this.line(
          this.paint(colour, `── ${status} in ${Math.round(ms)} ms${message ? `: ${message}` : ''} ──`),
        );
      }
      seen.state = cell.state;
    }
    for (const artifact of cell.artifacts.slice(seen.files)) {
      this.line(this.paint('cyan', `   ${artifact.change}: ${artifact.path} (${artifact.bytes} bytes)`));
    }
    seen.files = cell.artifacts.length;
  }

  /** One line under the answer: whether its numbers appear in what the run executed. */
  private grounding(numbers: GroundedNumber[]): void {
    const claims = numbers.filter((n) => n.status !== 'ignored');
    if (claims.length === 0) return;
    this.closeSection();
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

  private openTag(index: number, tag: string): void {
    this.openSection = { index, tag };
    this.modelText(this.paint('bold', `<${tag}>`));
  }

  private closeSection(): void {
    const open = this.openSection;
    if (!open) return;
    this.openSection = undefined;
    this.pendingSpace = '';
    this.modelText(this.paint('bold', `</${open.tag}>`));
    this.pendingSpace = '\n';
  }

  /** Writes visible model text, holding trailing whitespace until more text follows. */
  private modelText(text: string): void {
    const body = text.replace(/\s+$/, '');
    const trailing = text.slice(body.length);
    if (body) {
      if (!this.afterStatusLine) this.text(this.pendingSpace);
      this.pendingSpace = '';
      this.text(body);
    }
    this.pendingSpace += trailing;
  }

  private code(language: string, code: string): void {
    const lines = code.replace(/\s+$/, '').split('\n');
    this.line(this.paint('dim', `── ${language} ──`));
    for (const line of lines.slice(0, this.maxCodeLines)) this.line(line);
    const more = lines.length - this.maxCodeLines;
    if (more > 0) this.line(this.paint('dim', `   … ${more} more line${more === 1 ? '' : 's'}`));
  }

  private paint(style: keyof typeof STYLE, text: string): string {
    return this.color ? `${STYLE[style]}${text}${STYLE.reset}` : text;
  }

  private text(text: string): void {
    if (!text) return;
    this.write(text);
    this.atLineStart = text.endsWith('\n') || text.endsWith(`\n${STYLE.reset}`);
    this.afterStatusLine = false;
  }

  private line(text: string): void {
    this.write(`${this.atLineStart ? '' : '\n'}${text}\n`);
    this.atLineStart = true;
    this.afterStatusLine = true;
    this.pendingSpace = '';
  }
}
