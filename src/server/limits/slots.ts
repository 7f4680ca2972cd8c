/**
 * At most `size` holders per owner at once; others wait their turn in order (or give up
 * when their signal aborts). Each release frees its slot once.
 */
export class Slots {
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly size: number) {}

  /** A slot now, or undefined when the owner holds them all. */
  tryTake(owner: string): (() => void) | undefined {
    const count = this.held.get(owner) ?? 0;
    if (count >= this.size) return undefined;
    this.held.set(owner, count + 1);
    return this.releaser(owner);
  }

  /** A slot when one is free; rejects with the signal's reason when it aborts first. */
  take(owner: string, signal?: AbortSignal): Promise<() => void> {
    const now = this.tryTake(owner);
    if (now) return Promise.resolve(now);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(owner) ?? [];
      this.waiting.set(owner, queue);
      const turn = () => {
        signal?.removeEventListener('abort', onAbort);
        this.held.set(owner, (this.held.get(owner) ?? 0) + 1);
        resolve(this.releaser(owner));
      };
      const onAbort = () => {
        const at = queue.indexOf(turn);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason);
      };
      queue.push(turn);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(owner: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const queue = this.waiting.get(owner);
      const next = queue?.shift();
      if (queue && queue.length === 0) this.waiting.delete(owner);
      const count = (this.held.get(owner) ?? 1) - 1;
      if (count === 0) this.held.delete(owner);
      else this.held.set(owner, count);
      next?.();
    };
  }
}
