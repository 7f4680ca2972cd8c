import type { SandboxContainer } from './sandbox-container.ts';

/**
 * Every container removal of a manager, so close() can wait for all of them. Idle ones go a
 * few at a time: many removals at once keep the engine from serving anything else, container
 * starts with them, so new threads miss the warm pool (docs/performance.md#container-removals;
 * the manager removes one at a time). Containers here run no cell (a given-back session, a
 * pooled one past its age), so nobody waits for them to go; a container that may still run
 * code is removed at once, not queued.
 */
export class RemovalQueue {
  private readonly waiting: SandboxContainer[] = [];
  /** When each waiting container was queued (for `delayMs`). */
  private readonly queuedAt = new Map<SandboxContainer, number>();
  private delayTimer: NodeJS.Timeout | undefined;
  /** Removals under way, each settled once its container is gone and it left this map. */
  private readonly removing = new Map<SandboxContainer, Promise<void>>();
  /** Removals under way that hold a turn (the idle ones). */
  private inTurn = 0;
  private unbounded = false;

  constructor(
    private readonly options: {
      /** Idle removals under way at once. */
      atOnce: number;
      /**
       * More may wait than this only briefly: past it, removals start regardless of `atOnce`
       * (each waiting container holds its memory). Default 32.
       */
      maxWaiting?: number;
      /**
       * An idle container's removal starts no sooner than this after it was queued. A session
       * given back to make room for a new thread was otherwise removed beside that thread's
       * first cell, slowing it (docs/performance.md#container-removals). Default 0.
       */
      delayMs?: number;
      remove: (container: SandboxContainer) => Promise<void>;
    },
  ) {}

  /** Queues an idle container (it runs no cell): removed in its turn. */
  add(container: SandboxContainer): void {
    if (this.removing.has(container) || this.waiting.includes(container)) return;
    this.waiting.push(container);
    this.queuedAt.set(container, performance.now());
    this.pump();
  }

  /** Removes a container now, out of turn (it may still run code); resolves when it is gone. */
  now(container: SandboxContainer): Promise<void> {
    const index = this.waiting.indexOf(container);
    if (index >= 0) this.waiting.splice(index, 1);
    this.queuedAt.delete(container);
    return this.removing.get(container) ?? this.start(container, false);
  }

  /** Containers waiting or being removed (the reaper leaves them to this queue). */
  names(): string[] {
    return [...this.waiting, ...this.removing.keys()].map((c) => c.name);
  }

  /** Containers whose removal has not started yet. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  get length(): number {
    return this.waiting.length + this.removing.size;
  }

  /**
   * Removes the containers `match` picks now, out of turn (their workspace is being deleted);
   * resolves when they are gone.
   */
  async expedite(match: (container: SandboxContainer) => boolean): Promise<void> {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (match(this.waiting[i]!)) this.start(this.takeWaiting(i), true);
    }
    await Promise.all([...this.removing].filter(([c]) => match(c)).map(([, removal]) => removal));
  }

  /** Removes everything still waiting at once (closing); resolves when all are gone. */
  async flush(): Promise<void> {
    this.unbounded = true;
    while (this.length > 0) {
      this.pump();
      await Promise.all(this.removing.values());
    }
  }

  private pump(): void {
    const maxWaiting = this.options.maxWaiting ?? 32;
    const delayMs = this.options.delayMs ?? 0;
    clearTimeout(this.delayTimer);
    this.delayTimer = undefined;
    while (this.waiting.length > 0) {
      const overflowing = this.unbounded || this.waiting.length > maxWaiting;
      if (!overflowing && this.inTurn >= this.options.atOnce) return;
      // Oldest first, so the first one waiting is the first whose delay ends.
      const waitMs = this.queuedAt.get(this.waiting[0]!)! + delayMs - performance.now();
      if (!overflowing && waitMs > 0) {
        this.delayTimer = setTimeout(() => this.pump(), waitMs);
        this.delayTimer.unref();
        return;
      }
      this.start(this.takeWaiting(0), true);
    }
  }

  private takeWaiting(index: number): SandboxContainer {
    const [container] = this.waiting.splice(index, 1);
    this.queuedAt.delete(container!);
    return container!;
  }

  private start(container: SandboxContainer, holdsTurn: boolean): Promise<void> {
    if (holdsTurn) this.inTurn += 1;
    const removal = this.options
      .remove(container)
      .catch(() => {}) // remove() reports its own failures
      .finally(() => {
        this.removing.delete(container);
        if (holdsTurn) this.inTurn -= 1;
        this.pump();
      });
    this.removing.set(container, removal);
    return removal;
  }
}
