import type { TaskStatus } from './suite.ts';

/**
 * Progress on stderr: on a terminal one line redrawn in place (a bar, counts, an ETA from
 * the pace so far); otherwise one plain line per finished task, for logs and pipes.
 */
export class Progress {
  private done = 0;
  private readonly counts: Record<TaskStatus, number> = { passed: 0, failed: 0, blocked: 0, error: 0 };
  private readonly startedAt: number;
  private lastDrawAt = 0;

  constructor(
    private readonly options: {
      total: number;
      write: (text: string) => void;
      tty: boolean;
      now?: () => number;
      /** Bar width in characters. Default 24. */
      width?: number;
    },
  ) {
    this.startedAt = this.now();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  task(id: string, status: TaskStatus, durationMs: number): void {
    this.done += 1;
    this.counts[status] += 1;
    if (!this.options.tty) {
      const width = String(this.options.total).length;
      this.options.write(
        `[${String(this.done).padStart(width)}/${this.options.total}] ${id} ${status} ${(durationMs / 1000).toFixed(1)} s\n`,
      );
      return;
    }
    const now = this.now();
    if (this.done < this.options.total && now - this.lastDrawAt < 100) return;
    this.lastDrawAt = now;
    this.options.write(`\r${this.line(now)}\u001b[K`);
    if (this.done === this.options.total) this.options.write('\n');
  }

  /** The bar line, e.g. `[######------] 120/400 30% · 80 passed 38 failed 2 blocked · ETA 2m10s`. */
  line(now = this.now()): string {
    const { total } = this.options;
    const width = this.options.width ?? 24;
    const filled = total > 0 ? Math.round((this.done / total) * width) : width;
    const elapsed = now - this.startedAt;
    const left = total - this.done;
    const eta = this.done > 0 && left > 0 ? ` · ETA ${duration((elapsed / this.done) * left)}` : '';
    const c = this.counts;
    const percent = total > 0 ? Math.floor((this.done / total) * 100) : 100;
    return (
      `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${total} ${percent}% · ` +
      `${c.passed} passed ${c.failed} failed ${c.error} errors ${c.blocked} blocked${eta}`
    );
  }
}

export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
