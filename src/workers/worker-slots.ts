import type { Worker } from 'node:worker_threads';

export interface WorkerSlot {
  worker: Worker;
  busy: boolean;
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
  /** Workers started, and alive at once at most (for tests and status). */
  started = 0;
  mostAtOnce = 0;

  constructor(
    readonly limit: number,
    private readonly spawnWorker: () => Worker,
    private readonly name: string,
  ) {}

  acquire(): Promise<WorkerSlot> {
    if (this.closed) return Promise.reject(new Error(`the ${this.name} workers are closed`));
    const idle = this.slots.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.slots.length < this.limit) {
      const slot: WorkerSlot = { worker: this.spawn(), busy: true };
      this.slots.push(slot);
      this.mostAtOnce = Math.max(this.mostAtOnce, this.slots.length);
      return Promise.resolve(slot);
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.acquire())));
  }

  release(slot: WorkerSlot): void {
    slot.busy = false;
    this.waiting.shift()?.();
  }

  discard(slot: WorkerSlot): void {
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    void slot.worker.terminate();
    this.waiting.shift()?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private spawn(): Worker {
    const worker = this.spawnWorker();
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
