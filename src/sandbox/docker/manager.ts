import type Docker from 'dockerode';
import { InvalidInputError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { WorkspaceStore } from '../../workspace/workspace.ts';
import { prepareInjectedInput } from '../data-injection.ts';
import { SandboxBusyError } from '../errors/sandbox-busy-error.ts';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.ts';
import { hostResult } from '../exec-result.ts';
import {
  DEFAULT_LIMITS,
  resolveMaxOutputBytes,
  resolveTimeoutMs,
  type SandboxLimits,
  validateCode,
} from '../limits.ts';
import type {
  AllocatedWorkspace,
  CellRequest,
  EphemeralRequest,
  ExecResult,
  LiveSession,
  SandboxManager,
  SandboxStatus,
  SessionRef,
  TaskPool,
  TaskPoolOptions,
} from '../sandbox.ts';
import { ContainerStarter } from './container-starter.ts';
import { type DockerEndpoint, resolveDockerEndpoint } from './endpoint.ts';
import { dockerClient, sandboxImage } from './engine.ts';
import { currentProcessIdentity, type ProcessIdentity } from './labels.ts';
import { type DockerSandboxOptions, type ManagerTimings, managerTimings } from './manager-options.ts';
import { reapContainers } from './reaper.ts';
import { RemovalQueue } from './removal-queue.ts';
import { runOnContainer } from './run-on-container.ts';
import type { SandboxContainer } from './sandbox-container.ts';
import { SessionContainers } from './session-containers.ts';
import { DockerTaskPool } from './task-pool.ts';
import { unavailableResult } from './unavailable-result.ts';
import { WarmPool } from './warm-pool.ts';

export type { DockerSandboxOptions } from './manager-options.ts';

const MAX_TASK_WORKERS = 32;

/** The Docker-backed SandboxManager. Create it with `createDockerSandbox`. */
export class DockerSandboxManager implements SandboxManager {
  readonly image: string;
  readonly endpoint: DockerEndpoint;
  readonly limits: SandboxLimits;
  private readonly docker: Docker;
  private readonly identity: ProcessIdentity;
  private readonly timings: ManagerTimings;
  private readonly containers: ContainerStarter;
  private readonly sessions: SessionContainers;
  private readonly ephemeral = new Set<SandboxContainer>();
  private readonly taskPools = new Set<DockerTaskPool>();
  /**
   * Every removal, so close() returns only when every container is gone; idle containers
   * (given back, aged in the pool) are removed one at a time, not all at once.
   */
  private readonly removals = new RemovalQueue({
    atOnce: 1,
    delayMs: 500,
    remove: (container) => container.remove().catch(this.onError),
  });
  private readonly sessionPool: WarmPool;
  private readonly ephemeralPool: WarmPool;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private timer: NodeJS.Timeout | undefined;
  /** Resolves when the pools are first full (or their containers could not be made). */
  private warmUp: Promise<void> | undefined;
  private warmedUp = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: DockerSandboxOptions = {}) {
    this.image = options.image ?? sandboxImage();
    this.endpoint = options.endpoint ?? resolveDockerEndpoint();
    this.docker = options.docker ?? dockerClient(this.endpoint);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
    this.identity = currentProcessIdentity(`${process.pid}-${randomHex(6)}`);
    this.timings = managerTimings(options);
    this.containers = new ContainerStarter({
      docker: this.docker,
      endpoint: this.endpoint,
      image: this.image,
      identity: this.identity,
      limits: this.limits,
      leaseMs: this.timings.leaseMs,
      runtimeDir: this.timings.runtimeDir,
      startupTimeoutMs: this.timings.startupTimeoutMs,
      now: this.now,
    });
    const { maxAgeMs } = this.timings;
    // Warm session containers have an empty slot at /workspace: any thread's workspace is
    // attached when one is taken (hosts that cannot mount have no slots and no session pool).
    this.sessionPool = new WarmPool({
      size: options.sessionsUnavailable ? 0 : (options.pool?.session ?? 0),
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      retire: (container) => this.retireIdle(container),
      create: async () => {
        if (!(await this.containers.slots()))
          throw new SandboxUnavailableError('no workspace slots on this host');
        return this.containers.start('pool-session', 'pool', undefined, { slot: true });
      },
      quiet: options.quiet,
      refillDelayMs: 250,
    });
    this.sessions = new SessionContainers({
      limits: this.timings.sessions,
      now: this.now,
      takeWarm: () => this.sessionPool.take(),
      start: async (sessionId, workspace) =>
        workspace
          ? this.containers.start('session', sessionId, workspace)
          : this.containers.start('session', sessionId, undefined, { slot: true }),
      retire: (container) => this.retire(container),
      giveBack: (container) => this.retireIdle(container),
      slots: () => this.containers.slots(),
    });
    this.ephemeralPool = new WarmPool({
      size: options.pool?.ephemeral ?? 0,
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      retire: (container) => this.retireIdle(container),
      create: () => this.containers.start('pool-ephemeral', 'pool'),
      quiet: options.quiet,
    });
  }

  /** Resolves when the pools are first full, or their containers could not be made (see `start`). */
  async warmed(): Promise<void> {
    await this.warmUp;
  }

  /** Written on every container this manager makes (label dev.analyst.instance). */
  get instanceId(): string {
    return this.identity.instance;
  }

  /**
   * Reaps leftovers of crashed processes, fills the pools and starts the periodic sweep.
   * `status().warming` is true until the pools are full (or their containers could not be
   * made), so a server says it is ready only when its first new threads wait for no container
   * start and share the CPU with none (issue 32).
   */
  async start(): Promise<void> {
    // A killed server's slots hold workspaces mounted: freed now, not when a session first needs a slot.
    if (this.options.workspaces) await this.containers.removeLeftoverSlots().catch(this.onError);
    try {
      await this.containers.engine();
      await this.reap();
      this.warmUp = Promise.all([this.sessionPool.fill(), this.ephemeralPool.fill()]).then(() => {
        this.warmedUp = true;
      });
    } catch (error) {
      this.onError(error); // No engine yet: cells will say so; the sweep retries.
    }
    const interval = this.timings.reapIntervalMs;
    if (interval > 0) {
      this.timer = setInterval(() => void this.sweep().catch(this.onError), interval);
      this.timer.unref();
      // Idle sessions are given back sooner than the engine is swept (it costs nothing).
      this.idleTimer = setInterval(() => this.sessions.sweep(), Math.min(interval, 15_000));
      this.idleTimer.unref();
    }
  }

  async runCell(ref: SessionRef, request: CellRequest): Promise<ExecResult> {
    validateCode(request.code);
    const timeoutMs = resolveTimeoutMs(request.timeoutMs, this.limits);
    resolveMaxOutputBytes(request.maxOutputBytes, this.limits);
    if (this.options.sessionsUnavailable) return hostResult('unavailable', this.options.sessionsUnavailable);
    const session = this.sessions.session(ref.id, ref.workspace);
    return session.enqueue(async () => {
      let container: SandboxContainer;
      try {
        container = await this.sessions.acquire(session);
      } catch (error) {
        if (error instanceof SandboxBusyError) throw error;
        return unavailableResult(error, this.endpoint);
      }
      const stateful = ref.stateful ?? false;
      if (stateful) session.statefulUsed = true;
      const lost = this.sessions.takeLostStateNote(ref.id, stateful);
      const result = await runOnContainer(container, request, { timeoutMs, limits: this.limits, stateful });
      // Named for its thread after the run, not during it: the rename is engine work that
      // slowed its cells (docs/performance.md#container-rename).
      const pendingName = container.pendingName;
      if (pendingName) {
        container.pendingName = undefined;
        const quiet = this.options.quiet?.settled() ?? Promise.resolve();
        void quiet.then(() => container.rename(pendingName));
      }
      if (!container.alive) {
        session.container = undefined;
        this.retire(container);
      }
      return lost ? { ...result, message: result.message ? `${result.message}; ${lost}` : lost } : result;
    });
  }

  async runEphemeral(request: EphemeralRequest): Promise<ExecResult> {
    validateCode(request.code);
    const timeoutMs = resolveTimeoutMs(request.timeoutMs, this.limits);
    resolveMaxOutputBytes(request.maxOutputBytes, this.limits);
    const hasInput = request.data !== undefined || request.results !== undefined;
    const input = hasInput
      ? prepareInjectedInput(request.data, request.results, this.limits.maxInputBytes)
      : undefined;
    const sourceQueryIds = request.sourceQueryIds ?? [];
    let container: SandboxContainer;
    try {
      container =
        this.ephemeralPool.take() ?? (await this.containers.start('ephemeral', `call-${randomHex(6)}`));
    } catch (error) {
      return {
        ...unavailableResult(error, this.endpoint),
        source_query_ids: sourceQueryIds,
        input_complete: input?.complete ?? true,
      };
    }
    this.ephemeral.add(container);
    try {
      return await runOnContainer(container, request, {
        timeoutMs,
        limits: this.limits,
        stateful: false,
        data: input?.json,
        inputComplete: input?.complete ?? true,
        sourceQueryIds,
      });
    } finally {
      this.ephemeral.delete(container);
      this.retire(container);
    }
  }

  async createTaskPool(options: TaskPoolOptions = {}): Promise<TaskPool> {
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_TASK_WORKERS)
      throw new InvalidInputError(
        `workers must be a whole number from 1 to ${MAX_TASK_WORKERS} (got ${workers})`,
        {
          param: 'workers',
        },
      );
    const owner = `pool-${randomHex(4)}`;
    const pool: DockerTaskPool = new DockerTaskPool({
      workers,
      limits: this.limits,
      start: () =>
        this.containers.start('task', owner, undefined, { preloadModules: options.preloadModules }),
      retire: (container) => this.retire(container),
      maxAgeMs: this.timings.maxAgeMs,
      now: this.now,
      unavailable: (error) => unavailableResult(error, this.endpoint),
      onClose: () => this.taskPools.delete(pool),
    });
    this.taskPools.add(pool);
    void pool.warm();
    return pool;
  }

  async allocateWorkspace(): Promise<AllocatedWorkspace> {
    return { workspace: await this.workspaceStore().create(), warm: this.sessionPool.readyCount > 0 };
  }

  liveSessions(): LiveSession[] {
    return this.sessions.live();
  }

  async closeSession(id: string): Promise<void> {
    await this.sessions.close(id);
  }

  async releaseWorkspace(workspaceId: string): Promise<void> {
    await Promise.all([
      this.sessions.closeWorkspace(workspaceId),
      this.removals.expedite((container) => container.workspace?.id === workspaceId),
    ]);
  }

  async status(): Promise<SandboxStatus> {
    let available = true;
    let message: string | undefined;
    try {
      await this.containers.engine();
    } catch (error) {
      available = false;
      message = (error as Error).message;
    }
    return {
      endpoint: this.endpoint.socketPath,
      image: this.image,
      available,
      ...(message ? { message } : {}),
      sessions: this.sessions.liveCount,
      pool: { session: this.sessionPool.readyCount, ephemeral: this.ephemeralPool.readyCount },
      removing: this.removals.length,
      warming: this.warmUp !== undefined && !this.warmedUp,
      starting: this.containers.starting,
    };
  }

  async reap(): Promise<string[]> {
    const inUse = new Set<string>([...this.sessionPool.names(), ...this.ephemeralPool.names()]);
    for (const name of this.sessions.names()) inUse.add(name);
    for (const name of this.removals.names()) inUse.add(name);
    for (const container of this.ephemeral) inUse.add(container.name);
    for (const pool of this.taskPools) for (const name of pool.names()) inUse.add(name);
    return reapContainers(this.docker, { self: this.identity, now: new Date(this.now()), inUse });
  }

  async close(): Promise<void> {
    this.containers.refuseStarts();
    if (this.timer) clearInterval(this.timer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    await Promise.all([
      this.sessionPool.close(),
      this.ephemeralPool.close(),
      this.sessions.closeAll(),
      ...[...this.ephemeral].map((c) => c.remove()),
      ...[...this.taskPools].map((p) => p.close()),
    ]);
    await this.removals.flush();
    await this.containers.closeSlots();
  }

  /** Removes a container now, in the background; close() waits for it. */
  private retire(container: SandboxContainer): void {
    void this.removals.now(container);
  }

  /**
   * Removes a container that runs no cell, in its turn (RemovalQueue). Its workspace leaves it
   * now (an unmount), so nothing in it reaches the thread's files while it waits.
   */
  private retireIdle(container: SandboxContainer): void {
    const slot = container.slot;
    if (slot && container.workspace) {
      void this.containers
        .slots()
        .then((slots) => slots?.detach(slot))
        .catch(this.onError);
    }
    this.removals.add(container);
  }

  private workspaceStore(): WorkspaceStore {
    if (!this.options.workspaces) {
      throw new SandboxUnavailableError('this sandbox manager was made without a workspace store');
    }
    return this.options.workspaces;
  }

  /** Gives back idle session containers, replaces aging pooled ones, reaps others' leftovers. */
  async sweep(): Promise<void> {
    this.sessions.sweep();
    this.sessionPool.retireOld();
    this.ephemeralPool.retireOld();
    await this.containers.engine();
    await this.reap();
  }
}

/** A manager that has reaped leftovers and started filling its pools. */
export async function createDockerSandbox(options: DockerSandboxOptions = {}): Promise<DockerSandboxManager> {
  const manager = new DockerSandboxManager(options);
  await manager.start();
  return manager;
}
