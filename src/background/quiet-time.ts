/**
 * When the server is doing work a user waits for (a run, a cell), and when it is quiet, so
 * that work done ahead of demand — starting a warm container, copying and mounting a spare
 * workspace — runs between runs, not beside one: on a small host a container's start (an
 * import of pandas) on the CPU a run's cell is pinned to costs that cell about half a second
 * (issue 32; docs/performance.md). The sandbox and workspace layers take it as an option;
 * the server marks its runs.
 */
export interface QuietTimeOptions {
  /** Quiet for this long counts as quiet (a new thread's run is reserved just after its workspace is taken). Default 300 ms. */
  settleMs?: number;
  /** Background work waits at most this long for quiet, so a server never quiet still refills. Default 20 s. */
  maxWaitMs?: number;
  /** Monotonic clock in ms; injected by tests. */
  now?: () => number;
}

export class QuietTime {
  private active = 0;
  private lastActiveAt: number;
  private readonly waiters = new Set<() => void>();
  private readonly settleMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: QuietTimeOptions = {}) {
    this.settleMs = options.settleMs ?? 300;
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    this.now = options.now ?? (() => performance.now());
    this.lastActiveAt = this.now();
  }

  /** Work a user waits for begins; call the function returned when it ends (once). */
  begin(): () => void {
    this.active += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active -= 1;
      this.lastActiveAt = this.now();
      if (this.active === 0) for (const wake of [...this.waiters]) wake();
    };
  }

  /** Work a user waits for is going on now. */
  get busy(): boolean {
    return this.active > 0;
  }

  /**
   * Resolves once nothing has been going on for `settleMs` (counted from the call, too: the
   * run that follows what called it may not have begun yet), or after `maxWaitMs` whatever
   * goes on. Never rejects.
   */
  async settled(): Promise<void> {
    const calledAt = this.now();
    const deadline = calledAt + this.maxWaitMs;
    for (;;) {
      const now = this.now();
      if (now >= deadline) return;
      if (this.active > 0) {
        await this.idleOrDeadline(deadline - now);
        continue;
      }
      const quietSince = Math.max(this.lastActiveAt, calledAt);
      const left = quietSince + this.settleMs - now;
      if (left <= 0) return;
      await sleep(Math.min(left, deadline - now));
    }
  }

  private idleOrDeadline(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.waiters.add(wake);
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
