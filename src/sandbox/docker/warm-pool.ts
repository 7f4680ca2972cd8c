import type { SandboxContainer } from './sandbox-container.ts';

/** How long a take that found the pool empty keeps the pool larger. */
const MISS_WINDOW_MS = 60_000;

/**
 * Keeps `size` started containers with warm kernels, so taking one costs nothing.
 * Refills one container at a time in the background; while one is still ready, each start
 * waits for `quiet` (no run going), so that a start (a CPU-heavy import of pandas) does not
 * compete with the cells of whoever took the last one (issue 32). An empty pool starts one
 * at once. Demand it did not meet (a take that found it empty) makes it larger for a minute, by
 * one container a miss up to twice its size: a steady stream of new threads then finds a warm
 * container, as the scale bench measures.
 */
export class WarmPool {
  private readonly ready: SandboxContainer[] = [];
  private filling: Promise<void> | undefined;
  /** Ends a refill's wait for quiet: the pool ran empty, or closes. */
  private wake: (() => void) | undefined;
  /** The fill in progress waits for quiet (a refill after a take), or not (`fill`). */
  private patient: boolean | undefined;
  private closed = false;
  /** When takes found the pool empty (within the last MISS_WINDOW_MS). */
  private misses: number[] = [];

  constructor(
    private readonly options: {
      size: number;
      create: () => Promise<SandboxContainer>;
      /** Containers older than this are replaced rather than handed out (their lease nears its end). */
      maxAgeMs: number;
      now: () => number;
      onError: (error: unknown) => void;
      /** Removes a container in the background (the owner waits for it on close). */
      retire: (container: SandboxContainer) => void;
      /**
       * Resolves when a start would compete with no one's cells (the server's QuietTime):
       * awaited before each start while the pool still has a ready container.
       */
      quiet?: { settled(): Promise<void> };
      /** Without `quiet`: how long after a take its replacement starts. Default 1000 ms. */
      refillDelayMs?: number;
    },
  ) {}

  get size(): number {
    return this.options.size;
  }

  /** The size it fills to now: `size`, plus one for each recent miss, up to twice `size`. */
  get target(): number {
    const since = this.options.now() - MISS_WINDOW_MS;
    this.misses = this.misses.filter((at) => at > since);
    return this.options.size + Math.min(this.options.size, this.misses.length);
  }

  get readyCount(): number {
    return this.ready.filter((c) => c.alive).length;
  }

  /** A warm container, or undefined when none is ready (the caller starts one itself). */
  take(): SandboxContainer | undefined {
    let taken: SandboxContainer | undefined;
    while (!taken && this.ready.length > 0) {
      const candidate = this.ready.shift()!;
      if (candidate.alive && this.options.now() - candidate.createdAt < this.options.maxAgeMs)
        taken = candidate;
      else this.options.retire(candidate);
    }
    if (!taken && this.options.size > 0) this.misses.push(this.options.now());
    // Empty: the next taker would wait for a whole start, which costs more than sharing the CPU;
    // one container is started at once, the rest when quiet.
    if (this.readyCount === 0) this.wake?.();
    void this.refill();
    return taken;
  }

  /** Starts filling in the background now if below size; returns when the pool is full. */
  fill(): Promise<void> {
    this.patient = false;
    this.wake?.();
    return this.refill();
  }

  /** Fills in the background, waiting for quiet before each start while one is ready. */
  private refill(): Promise<void> {
    if (this.closed || this.options.size <= 0) return Promise.resolve();
    if (!this.filling) this.patient ??= true;
    this.filling ??= this.fillLoop().finally(() => {
      this.patient = undefined;
      this.filling = undefined;
    });
    return this.filling;
  }

  private async fillLoop(): Promise<void> {
    let failures = 0;
    while (!this.closed && this.readyCount < this.target && failures < 3) {
      if (this.patient && this.readyCount > 0) await this.untilQuiet();
      if (this.closed || this.readyCount >= this.target) return;
      try {
        const container = await this.options.create();
        if (this.closed) {
          this.options.retire(container);
          return;
        }
        this.ready.push(container);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.options.onError(error);
      }
    }
  }

  /** Waits for quiet (or the delay), ended early when the pool runs empty or closes. */
  private untilQuiet(): Promise<void> {
    const { quiet, refillDelayMs = 1000 } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const waited = quiet
      ? quiet.settled()
      : new Promise<void>((resolve) => {
          timer = setTimeout(resolve, refillDelayMs);
          timer.unref();
        });
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    return Promise.race([waited, woken]).finally(() => {
      clearTimeout(timer);
      this.wake = undefined;
    });
  }

  /** Names of the pooled containers (so the reaper leaves them alone). */
  names(): string[] {
    return this.ready.map((c) => c.name);
  }

  /** Replaces pooled containers that are too old, and gives back what demand no longer needs. */
  retireOld(): void {
    const now = this.options.now();
    for (let i = this.ready.length - 1; i >= 0; i--) {
      const container = this.ready[i]!;
      if (!container.alive || now - container.createdAt >= this.options.maxAgeMs) {
        this.ready.splice(i, 1);
        this.options.retire(container);
      }
    }
    for (const container of this.ready.splice(this.target)) this.options.retire(container);
    this.fill();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.filling?.catch(() => {});
    for (const container of this.ready.splice(0)) this.options.retire(container);
  }
}
