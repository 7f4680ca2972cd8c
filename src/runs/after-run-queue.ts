interface Task {
  works: Array<() => Promise<void>>;
  started: boolean;
  promise: Promise<void>;
  start: () => void;
}

/**
 * The work finished runs leave (reports, usage), by thread, a few at a time. 200 chats that
 * end together would otherwise build 200 reports at once on the event loop, in front of the
 * chats still starting. A thread that needs its work done (its next run) moves it to the
 * front: `hurry` starts it now, whatever else is running.
 */
export class AfterRunQueue {
  private readonly tasks = new Map<string, Task>();
  private readonly queued: Task[] = [];
  private running = 0;

  constructor(
    /** Tasks at once. */
    private readonly concurrency: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  /** Queues `work` for the thread, after any work it already has. */
  add(threadId: string, work: () => Promise<void>): void {
    const current = this.tasks.get(threadId);
    if (current && !current.started) {
      current.works.push(work);
      return;
    }
    let start!: () => void;
    const started = new Promise<void>((resolve) => {
      start = resolve;
    });
    const task: Task = { works: [work], started: false, promise: Promise.resolve(), start };
    task.promise = started
      .then(() => current?.promise)
      .then(async () => {
        for (const each of task.works) await each().catch((error: unknown) => this.onError(error));
      })
      .finally(() => {
        this.running -= 1;
        if (this.tasks.get(threadId) === task) this.tasks.delete(threadId);
        this.next();
      });
    this.tasks.set(threadId, task);
    this.queued.push(task);
    this.next();
  }

  /** Resolves when the thread's work, queued now, is done (without moving it to the front). */
  done(threadId: string): Promise<void> {
    return this.tasks.get(threadId)?.promise ?? Promise.resolve();
  }

  /** Starts the thread's work now if it waits; resolves when it is done. */
  hurry(threadId: string): Promise<void> | undefined {
    const task = this.tasks.get(threadId);
    if (!task) return undefined;
    const at = this.queued.indexOf(task);
    if (at !== -1) {
      this.queued.splice(at, 1);
      this.begin(task);
    }
    return task.promise;
  }

  /** Resolves when all work, queued now or while waiting, is done. */
  async settled(): Promise<void> {
    while (this.tasks.size) await Promise.all([...this.tasks.values()].map((t) => t.promise));
  }

  private next(): void {
    while (this.running < this.concurrency && this.queued.length) this.begin(this.queued.shift()!);
  }

  private begin(task: Task): void {
    task.started = true;
    this.running += 1;
    task.start();
  }
}
