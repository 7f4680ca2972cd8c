/**
 * How much of one event-loop turn the relay of model streams may take, shared by every
 * stream of the process. Node (libuv ≥ 1.45) accepts one new connection per turn of the
 * loop, and many streams relaying at once made turns long: new chats waited in the accept
 * queue, and their set-up behind other chats' chunks (docs/performance.md#turn-budget).
 * With a budget, a stream that finds this turn's spent waits for the next one (its socket
 * buffers, then pushes back on the model server), so turns stay short, connections are
 * accepted and new chats start while the others stream. A stream's first chunk never waits:
 * the time to a first answer is what a person feels.
 */
export class TurnBudget {
  #windowStart: number | undefined;
  #waiters: Array<() => void> = [];
  #reopenScheduled = false;

  /** `budgetMs`: relay time per turn before streams wait for the next turn. */
  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Undefined when the caller may go on now, else a promise that resolves in a later turn. */
  wait(): Promise<void> | undefined {
    const now = this.now();
    if (this.#windowStart === undefined) {
      this.#windowStart = now;
      // The window closes with this turn: the next relay work opens a new one.
      setImmediate(() => {
        if (!this.#waiters.length) this.#windowStart = undefined;
      });
    }
    if (now - this.#windowStart < this.budgetMs) return undefined;
    const waiting = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#scheduleReopen();
    return waiting;
  }

  /**
   * An immediate queued now runs at the end of this turn; one queued from there runs at the
   * end of the next, after its poll phase (new connections, requests, other streams' reads).
   */
  #scheduleReopen(): void {
    if (this.#reopenScheduled) return;
    this.#reopenScheduled = true;
    setImmediate(() =>
      setImmediate(() => {
        this.#reopenScheduled = false;
        this.#windowStart = this.now();
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const resolve of waiters) resolve();
        setImmediate(() => {
          if (!this.#waiters.length) this.#windowStart = undefined;
        });
      }),
    );
  }
}

/** The process's budget for relaying model streams: a few milliseconds of every turn. */
export const RELAY_BUDGET = new TurnBudget(4);
