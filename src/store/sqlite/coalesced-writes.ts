/**
 * Writes queued in one turn of the event loop, committed together: `add` resolves once its
 * item is committed. Many runs streaming at once each store a batch of events per turn; one
 * SQLite transaction for all of them instead of one each halves the cost of a stored event
 * (measured: 200 runs, 59–71 µs an event in a transaction each, 29–41 µs in one). When the
 * shared commit fails, each item is committed again on its own, so one bad batch fails only
 * its caller. Items are committed in the order they were added.
 */
export class CoalescedWrites<T> {
  private queued: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];

  /** `commit` writes all the items in one transaction, or none of them (throwing). */
  constructor(private readonly commit: (items: T[]) => void) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also called before the database closes). */
  flush(): void {
    const queued = this.queued;
    if (!queued.length) return;
    this.queued = [];
    try {
      this.commit(queued.map((q) => q.item));
      for (const q of queued) q.resolve();
      return;
    } catch (error) {
      if (queued.length === 1) {
        queued[0]!.reject(error);
        return;
      }
    }
    for (const q of queued) {
      try {
        this.commit([q.item]);
        q.resolve();
      } catch (error) {
        q.reject(error);
      }
    }
  }
}
