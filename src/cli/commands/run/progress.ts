import type { AgentEvent } from '../../../agent/events.ts';
import { Spinner } from '../../render/spinner.ts';

/**
 * `analyst run`'s progress line on a terminal: which round, whether a cell is running or
 * the model is writing, the time of this step and of the whole run. It sits below the
 * streamed transcript and is erased before anything else is written.
 */
export class RunProgress {
  private readonly spinner: Spinner;
  private round = 0;
  private readonly startedAt: number;
  private readonly now: () => number;

  constructor(
    private readonly write: (text: string) => void,
    options: { color: boolean; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.spinner = new Spinner(write, { color: options.color, now: this.now });
  }

  /** A write function for the transcript that keeps the progress line out of its way. */
  readonly output = (text: string): void => {
    this.spinner.clear();
    this.write(text);
    if (text.endsWith('\n')) this.spinner.redraw();
  };

  push(event: AgentEvent): void {
    switch (event.type) {
      case 'round-start':
        this.round = event.round;
        this.spinner.start(this.label('the model is writing'));
        break;
      case 'execution-start':
        this.spinner.start(this.label('running a cell'));
        break;
      case 'execution-end':
        this.spinner.start(this.label('next step'));
        break;
      case 'run-end':
        this.spinner.stop();
        break;
      default:
        break;
    }
  }

  stop(): void {
    this.spinner.stop();
  }

  private label(what: string): () => string {
    return () =>
      `round ${this.round} (${Math.round((this.now() - this.startedAt) / 1000)} s in all) · ${what}`;
  }
}
