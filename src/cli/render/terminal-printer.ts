import type { AgentEvent, SectionTag } from '../../agent/events.ts';
import { TagScanner, type TagToken } from './tag-scanner.ts';

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
   * Code that was not streamed as model text (the offline analyst's profile program, tool
   * calls) is printed from its event, cut after this many lines. Default 20.
   */
  maxCodeLines?: number;
}

/**
 * Prints an analysis as it streams: the model's tagged text as it comes, execution output
 * dimmed, files and status lines in colour (when the terminal has colour).
 *
 * Every cell is printed once. The transcript repeats each cell's output as an `<Execute>`
 * block (and its files as `<File>`) after the execution events have shown them, so those
 * blocks are skipped. Code the model streams in `<Code>` is shown as it comes; code that
 * arrives whole (offline analyst, tools mode) is shown from its `code-end` event, and the
 * `<Code>` block the protocol writes afterwards is skipped. Tags may be split across deltas.
 */
export class TerminalPrinter {
  private readonly scanner = new TagScanner();
  private readonly maxCodeLines: number;
  private atLineStart = true;
  /** The last thing written was a status line: whitespace the model wrote next is dropped. */
  private afterStatusLine = true;
  /** Trailing whitespace of model text, written only if visible text follows. */
  private pendingSpace = '';
  /** The section being skipped (`Execute`, `File`, or a `Code` block already shown). */
  private hiding: SectionTag | undefined;
  /** A `<Code>` section was shown from the text since the last cell. */
  private codeStreamed = false;
  /** Cells shown from their events whose `<Code>` block is still to come in the text. */
  private codeBlocksToSkip = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly color: boolean,
    options: TerminalPrinterOptions = {},
  ) {
    this.maxCodeLines = options.maxCodeLines ?? 20;
  }

  print(event: AgentEvent): void {
    switch (event.type) {
      case 'run-start':
        this.line(this.paint('dim', `analyst: ${event.model} (${event.protocol}) — ${event.run_id}`));
        break;
      case 'text-delta':
        for (const token of this.scanner.push(event.text)) this.token(token);
        break;
      case 'code-end':
        this.flushText();
        if (!this.codeStreamed) {
          this.code(event.language, event.code);
          this.codeBlocksToSkip += 1;
        }
        this.codeStreamed = false;
        break;
      case 'execution-start':
        this.line(this.paint('dim', '── running ──'));
        break;
      case 'execution-output':
        this.text(this.paint('dim', event.text));
        break;
      case 'execution-end': {
        const { status, duration_ms: ms, message } = event.result;
        const colour = status === 'ok' ? 'green' : 'red';
        this.line(
          this.paint(colour, `── ${status} in ${Math.round(ms)} ms${message ? `: ${message}` : ''} ──`),
        );
        break;
      }
      case 'artifact-created':
        this.line(
          this.paint(
            'cyan',
            `   ${event.artifact.change}: ${event.artifact.path} (${event.artifact.bytes} bytes)`,
          ),
        );
        break;
      case 'notice':
        this.line(this.paint('yellow', `note: ${event.message}`));
        break;
      case 'error':
        this.line(this.paint('red', `error (${event.code}): ${event.message}`));
        break;
      case 'run-end': {
        this.flushText();
        const colour =
          event.status === 'completed' ? 'green' : event.status === 'cancelled' ? 'yellow' : 'red';
        const tokens = event.usage.total_tokens ? `, ${event.usage.total_tokens} tokens` : '';
        this.line(
          this.paint(
            colour,
            `run ${event.status} after ${event.round} round(s), ${Math.round(event.duration_ms / 1000)} s${tokens}`,
          ) + (event.reason ? ` — ${event.reason}` : ''),
        );
        break;
      }
      default:
        break;
    }
  }

  private token(token: TagToken): void {
    if (token.kind === 'text') {
      if (this.hiding) return;
      const body = token.text.replace(/\s+$/, '');
      const trailing = token.text.slice(body.length);
      if (body) this.modelText(body);
      this.pendingSpace += trailing;
      return;
    }
    if (token.kind === 'close') {
      if (this.hiding === token.tag) {
        this.hiding = undefined;
        this.pendingSpace = '';
      } else if (!this.hiding) {
        this.modelText(this.highlight(token.raw));
      }
      return;
    }
    // An opening tag closes a section left open (models forget closing tags).
    this.hiding = undefined;
    const skipCode = token.tag === 'Code' && this.codeBlocksToSkip > 0;
    if (token.tag === 'Execute' || token.tag === 'File' || skipCode) {
      if (skipCode) this.codeBlocksToSkip -= 1;
      this.hiding = token.tag;
      this.pendingSpace = '';
      return;
    }
    if (token.tag === 'Code') this.codeStreamed = true;
    this.modelText(this.highlight(token.raw));
  }

  /** Writes visible model text, with the whitespace held before it. */
  private modelText(text: string): void {
    if (!this.afterStatusLine) this.text(this.pendingSpace);
    this.pendingSpace = '';
    this.text(text);
  }

  /** Writes out a tag cut at the end of the last delta, if the stream stopped inside it. */
  private flushText(): void {
    for (const token of this.scanner.flush()) this.token(token);
    this.pendingSpace = '';
  }

  private code(language: string, code: string): void {
    const lines = code.replace(/\s+$/, '').split('\n');
    this.line(this.paint('dim', `── ${language} ──`));
    for (const line of lines.slice(0, this.maxCodeLines)) this.line(line);
    const more = lines.length - this.maxCodeLines;
    if (more > 0) this.line(this.paint('dim', `   … ${more} more line${more === 1 ? '' : 's'}`));
  }

  private highlight(tag: string): string {
    return this.paint('bold', tag);
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
