import { hostResult } from '../exec-result.ts';
import { resolveMaxOutputBytes, resolveTimeoutMs, type SandboxLimits, validateCode } from '../limits.ts';
import type { CellRequest, ExecResult, TaskPool } from '../sandbox.ts';
import { runOnContainer } from './run-on-container.ts';
import type { SandboxContainer } from './sandbox-container.ts';

export interface DockerTaskPoolOptions {
  workers: number;
  limits: SandboxLimits;
  /** Starts one container (kind `task`: tmpfs /workspace, the pool's modules preloaded). */
  start: () => Promise<SandboxContainer>;
  /** Removes a container in the background (the manager waits for it on close). */
  retire: (container: SandboxContainer) => void;
  /** Containers older than this are replaced between tasks (their lease nears its end). */
  maxAgeMs: number;
  now: () => number;
  /** The result a task gets when no container could be started. */
  unavailable: (error: unknown) => ExecResult;
  onClose?: () => void;
}

/**
 * The Docker TaskPool: at most `workers` containers, each running one task at a time.
 * Containers start eagerly and in parallel (`warm`); a task takes an idle one or waits.
 * The kernel does the isolation (fresh forked process, every other process killed,
 * /workspace and /tmp emptied after the task); the pool replaces containers that died.
 */
export class DockerTaskPool implements TaskPool {
  private readonly idle: SandboxContainer[] = [];
  private readonly all = new Set<SandboxContainer>();
  private readonly waiting: Array<() => void> = [];
  /** Containers started or starting; never more than `workers`. */
  private live = 0;
  private closed = false;
  private modules: Record<string, string> | undefined;

  constructor(private readonly options: DockerTaskPoolOptions) {}

  get workers(): number {
    return this.options.workers;
  }

  /** Names of the pool's containers (the reaper leaves them alone). */
  names(): string[] {
    return [...this.all].map((c) => c.name);
  }

  /** Starts every missing worker now, in parallel; failures surface on the next task instead. */
  async warm(): Promise<void> {
    const missing = this.options.workers - this.live;
    await Promise.all(
      Array.from({ length: Math.max(0, missing) }, async () => {
        this.live++;
        try {
          const container = await this.started();
          this.release(container);
        } catch {
          this.live--;
          this.wakeOne();
        }
      }),
    );
  }

  async run(request: CellRequest): Promise<ExecResult> {
    validateCode(request.code);
    const timeoutMs = resolveTimeoutMs(request.timeoutMs, this.options.limits);
    resolveMaxOutputBytes(request.maxOutputBytes, this.options.limits);
    let container: SandboxContainer;
    try {
      container = await this.acquire();
    } catch (error) {
      if (this.closed) return hostResult('cancelled', 'the task pool was closed before the task started');
      return this.options.unavailable(error);
    }
    try {
      return await runOnContainer(container, request, {
        timeoutMs,
        limits: this.options.limits,
        stateful: false,
        clearWorkspace: true,
      });
    } finally {
      this.release(container);
    }
  }

  async preloaded(): Promise<Record<string, string>> {
    if (!this.modules) this.release(await this.acquire());
    return { ...this.modules };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.onClose?.();
    for (const wake of this.waiting.splice(0)) wake();
    const containers = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(containers.map((c) => c.remove()));
  }

  private async acquire(): Promise<SandboxContainer> {
    for (;;) {
      if (this.closed) throw new Error('the task pool is closed');
      const ready = this.idle.pop();
      if (ready) {
        if (ready.alive) return ready;
        this.drop(ready);
        continue;
      }
      if (this.live < this.options.workers) {
        this.live++;
        try {
          return await this.started();
        } catch (error) {
          this.live--;
          this.wakeOne();
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private async started(): Promise<SandboxContainer> {
    const container = await this.options.start();
    if (this.closed) {
      this.options.retire(container);
      throw new Error('the task pool is closed');
    }
    this.all.add(container);
    this.modules ??= { ...container.hello.preloaded };
    return container;
  }

  private release(container: SandboxContainer): void {
    const tooOld = this.options.now() - container.createdAt >= this.options.maxAgeMs;
    if (this.closed || !container.alive || tooOld) this.drop(container);
    else this.idle.push(container);
    this.wakeOne();
  }

  private drop(container: SandboxContainer): void {
    if (!this.all.delete(container)) return;
    this.live--;
    this.options.retire(container);
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }
}
