import { abortError } from '../errors/abort.ts';

interface Waiter {
  key: string;
  start: () => void;
}

/** Jobs run, jobs waiting, and the most that ran at once (for tests and status). */
export interface FairPoolCounts {
  running: number;
  waiting: number;
  mostAtOnce: number;
}

/**
 * At most `size` jobs at once, shared fairly between keys: each key has its own queue and a
 * freed slot goes to the waiting key served least recently (a key never served first of all;
 * ties in the order the keys began to wait), so one key's queue delays another key's job by
 * at most the one job of its own that is running, however many it sent. A job whose signal
 * aborts leaves its queue at once, and a running job is handed the signal to stop its work.
 */
export class FairPool {
  private readonly queues = new Map<string, Waiter[]>();
  /** Keys with waiting jobs, in the order they began to wait. */
  private readonly turn: string[] = [];
  /** When each key last had a job started (a count of starts); forgotten when the pool is idle. */
  private readonly served = new Map<string, number>();
  private starts = 0;
  private running = 0;
  private mostAtOnce = 0;

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be >= 1, got ${size}`);
  }

  /** Runs `work` once a slot is free for `key`; rejects with an AbortError if `signal` aborts first. */
  async run<T>(key: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    await this.take(key, signal);
    try {
      return await work();
    } finally {
      this.running--;
      this.next();
    }
  }

  counts(): FairPoolCounts {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { running: this.running, waiting, mostAtOnce: this.mostAtOnce };
  }

  private take(key: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError('the request was cancelled before its turn'));
    if (this.running < this.size && this.turn.length === 0) {
      this.started(key);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.remove(waiter);
        reject(abortError('the request was cancelled before its turn'));
      };
      const waiter: Waiter = {
        key,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.started(key);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(key);
      if (queue) queue.push(waiter);
      else {
        this.queues.set(key, [waiter]);
        this.turn.push(key);
      }
    });
  }

  private started(key: string): void {
    this.served.set(key, ++this.starts);
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
  }

  private next(): void {
    while (this.running < this.size && this.turn.length > 0) {
      let at = 0;
      for (let i = 1; i < this.turn.length; i++) {
        if ((this.served.get(this.turn[i]!) ?? 0) < (this.served.get(this.turn[at]!) ?? 0)) at = i;
      }
      const key = this.turn.splice(at, 1)[0] as string;
      const queue = this.queues.get(key) ?? [];
      const waiter = queue.shift();
      if (queue.length > 0) this.turn.push(key);
      else this.queues.delete(key);
      waiter?.start();
    }
    if (this.running === 0 && this.turn.length === 0) this.served.clear();
  }

  private remove(waiter: Waiter): void {
    const queue = this.queues.get(waiter.key);
    if (!queue) return;
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) {
      this.queues.delete(waiter.key);
      const inTurn = this.turn.indexOf(waiter.key);
      if (inTurn >= 0) this.turn.splice(inTurn, 1);
    }
  }
}
