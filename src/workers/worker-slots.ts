import { Worker } from 'node:worker_threads';

interface WorkerSlot {
  worker: Worker;
  busy: boolean;
  idle?: NodeJS.Timeout;
}

/** What a job's worker said, as its pool reads it. */
export type JobAnswer<T> = { result: T } | { error: Error } | undefined;

/** One job's part: how it is posted, read and failed; `id` tells its messages from others'. */
export interface JobSpec<T, M> {
  timeoutMs: number;
  post: (worker: Worker, id: number) => void;
  /** The job's result or error, or undefined while it goes on (e.g. it asked for data). */
  read: (message: M, worker: Worker) => JobAnswer<T>;
  timedOut: () => Error;
  /** The worker failed (`outOfMemory`: over its heap); it is discarded. */
  crashed: (error: Error, outOfMemory: boolean) => Error;
  /** The worker exited mid-job; `code` is its exit code. */
  exited: (code: number) => Error;
}

/**
 * A bounded set of long-lived worker threads, one job each at a time: a job takes an idle
 * worker (or starts one, up to `limit`) or waits its turn. A job that went wrong (out of time
 * or memory) discards its worker; the next job gets a fresh one. Idle workers do not keep the
 * process alive, and one that dies between jobs leaves the set.
 */
export class WorkerSlots {
  private readonly slots: WorkerSlot[] = [];
  private readonly waiting: Array<() => void> = [];
  private closed = false;
  private nextId = 0;
  /** Workers started, and alive at once at most (for tests and status). */
  started = 0;
  mostAtOnce = 0;

  constructor(
    private readonly options: {
      /** Workers at most. */
      limit: number;
      /** The worker's module. */
      script: URL;
      /** Each worker's heap. */
      memoryMb: number;
      /** Named in errors ("the report workers are closed"). */
      name: string;
      /**
       * A worker idle this long ends, giving back its isolate's memory; the next job starts
       * one anew. Default: idle workers live on.
       */
      idleExitMs?: number;
    },
  ) {}

  /** Workers alive now, busy or idle. */
  get alive(): number {
    return this.slots.length;
  }

  get limit(): number {
    return this.options.limit;
  }

  /**
   * Runs one job on a worker: its result, or its error. A job over its time, or whose worker
   * crashed or exited, discards the worker; an error the worker reported keeps it.
   */
  async job<T, M extends { id: number }>(spec: JobSpec<T, M>): Promise<T> {
    const slot = await this.acquire();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (answer: { result: T } | { error: Error }, keep: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        slot.worker.off('message', onMessage);
        slot.worker.off('error', onError);
        slot.worker.off('exit', onExit);
        if (keep) this.release(slot);
        else this.discard(slot);
        if ('error' in answer) reject(answer.error);
        else resolve(answer.result);
      };
      const timer = setTimeout(() => finish({ error: spec.timedOut() }, false), spec.timeoutMs);
      const onMessage = (message: M) => {
        if (message.id !== id) return;
        const answer = spec.read(message, slot.worker);
        if (answer) finish(answer, true);
      };
      const onError = (error: Error) =>
        finish(
          {
            error: spec.crashed(
              error,
              /ERR_WORKER_OUT_OF_MEMORY/.test(String((error as NodeJS.ErrnoException).code)),
            ),
          },
          false,
        );
      const onExit = (code: number) => finish({ error: spec.exited(code) }, false);
      slot.worker.on('message', onMessage);
      slot.worker.on('error', onError);
      slot.worker.on('exit', onExit);
      spec.post(slot.worker, id);
    });
  }

  private acquire(): Promise<WorkerSlot> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} workers are closed`));
    const idle = this.slots.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      clearTimeout(idle.idle);
      return Promise.resolve(idle);
    }
    if (this.slots.length < this.options.limit) {
      const slot: WorkerSlot = { worker: this.spawn(), busy: true };
      this.slots.push(slot);
      this.mostAtOnce = Math.max(this.mostAtOnce, this.slots.length);
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.acquire())));
  }

  private release(slot: WorkerSlot): void {
    slot.busy = false;
    const idleExitMs = this.options.idleExitMs;
    if (idleExitMs !== undefined) {
      slot.idle = setTimeout(() => {
        if (!slot.busy) this.discard(slot);
      }, idleExitMs);
      slot.idle.unref();
    }
    this.waiting.shift()?.();
  }

  private discard(slot: WorkerSlot): void {
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    void slot.worker.terminate();
    this.waiting.shift()?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) clearTimeout(slot.idle);
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(this.options.script, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb, maxYoungGenerationSizeMb: 32 },
      stdout: false,
      stderr: true,
    });
    this.started += 1;
    worker.unref();
    // A job's errors are handled by its own listeners.
    worker.on('error', () => {});
    worker.on('exit', () => {
      const at = this.slots.findIndex((s) => s.worker === worker);
      if (at !== -1 && !this.slots[at]!.busy) this.slots.splice(at, 1);
    });
    return worker;
  }
}
