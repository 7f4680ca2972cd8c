const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK_MS = 100;

/**
 * A one-line spinner with the time so far ("⠹ running cell · 2.4 s") on a terminal. It draws
 * on its own line and erases it before anything else is written, so output stays clean.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private label: string | (() => string) = '';
  private frame = 0;
  private shown = false;
  private readonly now: () => number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { color: boolean; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts (or restarts) the spinner; a label function is read at every frame. */
  start(label: string | (() => string)): void {
    this.stop();
    this.label = label;
    this.startedAt = this.now();
    this.timer = setInterval(() => this.draw(), TICK_MS);
    this.timer.unref();
    this.draw();
  }

  /** Erases the spinner line (call before writing). */
  clear(): void {
    if (!this.shown) return;
    this.shown = false;
    this.write('\r\u001b[2K');
  }

  /** Draws it again after a write that ended a line. */
  redraw(): void {
    if (this.timer) this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private draw(): void {
    const seconds = ((this.now() - this.startedAt) / 1000).toFixed(1);
    const label = typeof this.label === 'function' ? this.label() : this.label;
    const text = `${FRAMES[this.frame++ % FRAMES.length]} ${label} · ${seconds} s`;
    this.write(`\r\u001b[2K${this.options.color ? `\u001b[36m${text}\u001b[0m` : text}`);
    this.shown = true;
  }
}
