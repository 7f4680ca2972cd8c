import type { Workspace } from '../../workspace/workspace.ts';
import type { SandboxContainer } from './sandbox-container.ts';

/** A thread's sandbox slot: cells run one at a time, in the order they were asked for. */
export class Session {
  container: SandboxContainer | undefined;
  /** A cell kept variables in the current container (giving it back loses them). */
  statefulUsed = false;
  /** When a cell was last asked for or ended (ms, the `now` clock). */
  lastActiveAt: number;
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;

  constructor(
    readonly id: string,
    readonly workspace: Workspace,
    private readonly now: () => number = Date.now,
  ) {
    this.lastActiveAt = now();
  }

  get busy(): boolean {
    return this.running > 0;
  }

  enqueue<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    this.lastActiveAt = this.now();
    const result = this.tail.then(work).finally(() => {
      this.running -= 1;
      this.lastActiveAt = this.now();
    });
    this.tail = result.catch(() => {});
    return result;
  }

  async close(): Promise<void> {
    const container = this.container;
    this.container = undefined;
    await container?.remove();
  }
}
