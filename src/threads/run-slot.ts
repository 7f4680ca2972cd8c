import { randomHex } from '../ids/random-hex.ts';

/**
 * A thread's run slot, held by one run (see `ThreadLocks.claimRun`). Taken synchronously, so
 * two requests can never both pass the check; ended by the run, or released by a request that
 * failed before starting it.
 */
export class RunSlot {
  readonly runId = `run-${randomHex(12)}`;
  /** Aborted to stop the run (a cancel, a delete of the thread, the server stopping). */
  readonly controller = new AbortController();
  /** Resolves when the slot is free again. */
  readonly done: Promise<void>;
  /** Set once the run is stored and going: from then on only the run ends the slot. */
  started = false;
  private resolveDone!: () => void;
  private ended = false;

  constructor(
    readonly threadId: string,
    private readonly onEnd: (slot: RunSlot) => void,
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
