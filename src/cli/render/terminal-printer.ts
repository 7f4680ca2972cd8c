import type { AgentEvent } from '../../agent/events.ts';

const STYLE = {
  dim: '\u001b[2m',
  bold: '\u001b[1m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
};

/**
 * Prints an analysis as it streams: the model's tagged text as it comes, execution output
 * dimmed, files and status lines in colour (when the terminal has colour).
 */
export class TerminalPrinter {
  private atLineStart = true;

  constructor(
    private readonly write: (text: string) => void,
    private readonly color: boolean,
  ) {}

  print(event: AgentEvent): void {
    switch (event.type) {
      case 'run-start':
        this.line(this.paint('dim', `analyst: ${event.model} (${event.protocol}) — ${event.run_id}`));
        break;
      case 'text-delta':
        // Execute and File blocks are printed from their own events.
        if (!/^\s*\n?<(Execute|File)>/.test(event.text)) this.text(this.highlightTags(event.text));
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

  private highlightTags(text: string): string {
    return this.color
      ? text.replace(/<\/?(Analyze|Understand|Code|Answer)>/g, (tag) => this.paint('bold', tag))
      : text;
  }

  private paint(style: keyof typeof STYLE, text: string): string {
    return this.color ? `${STYLE[style]}${text}${STYLE.reset}` : text;
  }

  private text(text: string): void {
    if (!text) return;
    this.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    this.write(`${this.atLineStart ? '' : '\n'}${text}\n`);
    this.atLineStart = true;
  }
}
