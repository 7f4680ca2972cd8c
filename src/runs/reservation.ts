import { randomHex } from '../ids/random-hex.ts';

/**
 * A thread claimed for one run. Taken synchronously, so two requests can never both pass the
 * check; ended by the run, or released by a request that failed before starting it.
 */
export class Reservation {
  readonly runId = `run-${randomHex(12)}`;
  readonly controller = new AbortController();
  /** Resolves when the reservation ends. */
  readonly done: Promise<void>;
  started = false;
  private resolveDone!: () => void;
  private ended = false;

  constructor(
    readonly threadId: string,
    private readonly onEnd: (reservation: Reservation) => void,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Frees the thread (once). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
    this.resolveDone();
  }

  /** For a request that failed before the run started: frees the thread. */
  release(): void {
    if (!this.started) this.end();
  }
}
