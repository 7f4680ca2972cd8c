import type { SandboxContainer } from './sandbox-container.ts';

/**
 * Removes idle containers a few at a time. Fifty sessions going idle together were fifty
 * removals at once, and the engine served nothing else meanwhile: a container start took
 * 9.8 s (0.7 s quiet; 50 containers exiting at once, 5.0 s), so every new thread missed the
 * warm pool. Two at a time, a start took 1.4 s. Containers here run no cell (a given-back
 * session, a pooled one past its age), so nobody waits for them to go; a container that may
 * still run code is removed at once, not queued. The manager removes one at a time: in the
 * scale bench 60 of 60 new threads then found a warm container (two at a time: 59 of 60).
 */
export class RemovalQueue {
  private readonly waiting: SandboxContainer[] = [];
  /** Removals under way, each settled once its container is gone and it left this map. */
  private readonly removing = new Map<SandboxContainer, Promise<void>>();
  private unbounded = false;

  constructor(
    private readonly options: {
      /** Removals under way at once. */
      atOnce: number;
      /**
       * More may wait than this only briefly: past it, removals start regardless of `atOnce`
       * (each waiting container holds its memory, ~80 MiB idle). Default 32.
       */
      maxWaiting?: number;
      remove: (container: SandboxContainer) => Promise<void>;
    },
  ) {}

  add(container: SandboxContainer): void {
    if (this.removing.has(container) || this.waiting.includes(container)) return;
    this.waiting.push(container);
    this.pump();
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
      if (match(this.waiting[i]!)) this.start(this.waiting.splice(i, 1)[0]!);
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
    while (
      this.waiting.length > 0 &&
      (this.unbounded || this.removing.size < this.options.atOnce || this.waiting.length > maxWaiting)
    ) {
      this.start(this.waiting.shift()!);
    }
  }

  private start(container: SandboxContainer): void {
    const removal = this.options
      .remove(container)
      .catch(() => {}) // remove() reports its own failures
      .finally(() => {
        this.removing.delete(container);
        this.pump();
      });
    this.removing.set(container, removal);
  }
}
