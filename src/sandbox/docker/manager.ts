import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { QuietTime } from '../../background/quiet-time.ts';
import { InvalidInputError, isAnalystError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { Workspace, WorkspaceStore } from '../../workspace/workspace.ts';
import { prepareInjectedInput } from '../data-injection.ts';
import { SandboxBusyError } from '../errors/sandbox-busy-error.ts';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.ts';
import { hostResult } from '../exec-result.ts';
import { kernelSource } from '../kernel-source.ts';
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
import { CpuAssigner } from './cpu-assigner.ts';
import { type DockerEndpoint, resolveDockerEndpoint } from './endpoint.ts';
import {
  dockerClient,
  isConnectionError,
  sandboxImage,
  scrubHostPaths,
  statusCodeOf,
  unavailableFromError,
} from './engine.ts';
import { EngineCheck } from './engine-check.ts';
import {
  type ContainerKind,
  containerLabels,
  containerName,
  currentProcessIdentity,
  type ProcessIdentity,
} from './labels.ts';
import { reapContainers } from './reaper.ts';
import { RemovalQueue } from './removal-queue.ts';
import { runOnContainer } from './run-on-container.ts';
import { SandboxContainer } from './sandbox-container.ts';
import { SessionContainers } from './session-containers.ts';
import { DockerTaskPool } from './task-pool.ts';
import { WarmPool } from './warm-pool.ts';
import { WorkspaceSlots } from './workspace-slots.ts';

export interface DockerSandboxOptions {
  /** Default: PYTHON_SANDBOX_IMAGE, else `analyst-sandbox:latest`. */
  image?: string;
  /** Default: discovered per docs/spec.md#sandbox-engine. */
  endpoint?: DockerEndpoint;
  /** An engine client; default: dockerode on the endpoint's socket. */
  docker?: Docker;
  limits?: Partial<SandboxLimits>;
  /**
   * Where allocateWorkspace() and the session pool make workspaces. Without one, sessions
   * run on the workspaces they are given and the session pool stays empty.
   */
  workspaces?: WorkspaceStore;
  /** Where session containers' kernel sockets are made (briefly). Default: <tmpdir>/analyst-run. */
  runtimeDir?: string;
  /** Warm containers kept ready. Default 0 of each (the server and CLI turn them on). */
  pool?: { session?: number; ephemeral?: number };
  /** A stateless session container unused this long is given back. Default 2 min. */
  sessionIdleMs?: number;
  /** A session container that kept variables (stateful) is given back after this long unused. Default 30 min. */
  idleTtlMs?: number;
  /** Session containers alive at once, in total. Default: ¾ of the host's memory at 256 MiB each. */
  maxSessions?: number;
  /** How long a cell waits for room under the caps before SandboxBusyError. Default 5 s. */
  capacityWaitMs?: number;
  /** Lease written on session and pool containers; they are replaced before it ends. Default 6 h. */
  leaseMs?: number;
  /** How often idle sessions are removed and leftovers reaped; 0 turns it off. Default 60 s. */
  reapIntervalMs?: number;
  /** How long a new container may take to have a warm kernel. Default 60 s. */
  startupTimeoutMs?: number;
  /** Clock in ms since the epoch; injected by tests. */
  now?: () => number;
  /** Called with background failures (pool refills, reaping). */
  onError?: (error: unknown) => void;
  /**
   * When the server runs nothing a user waits for: warm containers are started and pooled
   * containers renamed then (issue 32). Without it a refill starts a fixed delay after a take.
   */
  quiet?: QuietTime;
  /**
   * Why session cells cannot run on this host (e.g. no safe workspaces without root): each
   * one is `unavailable` with this reason. One-shot cells, which mount nothing, still run.
   */
  sessionsUnavailable?: string;
}

const LEASE_MARGIN_MS = 10 * 60_000;
const MAX_TASK_WORKERS = 32;

/** The Docker-backed SandboxManager. Create it with `createDockerSandbox`. */
export class DockerSandboxManager implements SandboxManager {
  readonly image: string;
  readonly endpoint: DockerEndpoint;
  readonly limits: SandboxLimits;
  private readonly docker: Docker;
  private readonly identity: ProcessIdentity;
  private readonly sessions: SessionContainers;
  private slotsOpened: Promise<WorkspaceSlots | undefined> | undefined;
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
  private readonly engineCheck: EngineCheck;
  private cpus: CpuAssigner | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Resolves when the pools are first full (or their containers could not be made). */
  private warmUp: Promise<void> | undefined;
  private warmedUp = false;
  /** Containers being started now (status: what shares the CPU with cells). */
  private starting = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: DockerSandboxOptions = {}) {
    this.image = options.image ?? sandboxImage();
    this.endpoint = options.endpoint ?? resolveDockerEndpoint();
    this.docker = options.docker ?? dockerClient(this.endpoint);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
    this.engineCheck = new EngineCheck(this.docker, this.endpoint, this.image, this.now);
    this.identity = currentProcessIdentity(`${process.pid}-${randomHex(6)}`);
    const maxAgeMs = this.leaseMs - LEASE_MARGIN_MS;
    // Warm session containers have an empty slot at /workspace: any thread's workspace is
    // attached when one is taken (hosts that cannot mount have no slots and no session pool).
    this.sessionPool = new WarmPool({
      size: options.sessionsUnavailable ? 0 : (options.pool?.session ?? 0),
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      retire: (container) => this.retireIdle(container),
      create: async () => {
        if (!(await this.slots())) throw new SandboxUnavailableError('no workspace slots on this host');
        return this.startContainer('pool-session', 'pool', undefined, { slot: true });
      },
      quiet: options.quiet,
      refillDelayMs: 250,
    });
    // A container's memory limit is a ceiling, not its use (an idle one holds far less,
    // docs/performance.md#container-rename): three quarters of the host's memory at 256 MiB each.
    const memoryShare = Math.floor((totalmem() * 0.75) / (256 * 1024 ** 2));
    this.sessions = new SessionContainers({
      limits: {
        idleMs: options.sessionIdleMs ?? 2 * 60_000,
        statefulIdleMs: options.idleTtlMs ?? 30 * 60_000,
        maxSessions: options.maxSessions ?? Math.max(4, memoryShare),
        capacityWaitMs: options.capacityWaitMs ?? 5000,
        maxAgeMs,
      },
      now: this.now,
      takeWarm: () => this.sessionPool.take(),
      start: async (sessionId, workspace) =>
        workspace
          ? this.startContainer('session', sessionId, workspace)
          : this.startContainer('session', sessionId, undefined, { slot: true }),
      retire: (container) => this.retire(container),
      giveBack: (container) => this.retireIdle(container),
      slots: () => this.slots(),
    });
    this.ephemeralPool = new WarmPool({
      size: options.pool?.ephemeral ?? 0,
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      retire: (container) => this.retireIdle(container),
      create: () => this.startContainer('pool-ephemeral', 'pool'),
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

  private get leaseMs(): number {
    return this.options.leaseMs ?? 6 * 3600_000;
  }

  /**
   * Reaps leftovers of crashed processes, fills the pools and starts the periodic sweep.
   * `status().warming` is true until the pools are full (or their containers could not be
   * made), so a server says it is ready only when its first new threads wait for no container
   * start and share the CPU with none (issue 32).
   */
  async start(): Promise<void> {
    try {
      await this.engine();
      await this.reap();
      this.warmUp = Promise.all([this.sessionPool.fill(), this.ephemeralPool.fill()]).then(() => {
        this.warmedUp = true;
      });
    } catch (error) {
      this.onError(error); // No engine yet: cells will say so; the sweep retries.
    }
    const interval = this.options.reapIntervalMs ?? 60_000;
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
        return this.unavailable(error);
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
        this.ephemeralPool.take() ?? (await this.startContainer('ephemeral', `call-${randomHex(6)}`));
    } catch (error) {
      return {
        ...this.unavailable(error),
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
      start: () => this.startContainer('task', owner, undefined, { preloadModules: options.preloadModules }),
      retire: (container) => this.retire(container),
      maxAgeMs: this.leaseMs - LEASE_MARGIN_MS,
      now: this.now,
      unavailable: (error) => this.unavailable(error),
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
      await this.engine();
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
      starting: this.starting,
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
    this.closed = true;
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
    await (await this.slotsOpened)?.close();
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
      void this.slots()
        .then((slots) => slots?.detach(slot))
        .catch(this.onError);
    }
    this.removals.add(container);
  }

  /** The slots warm session containers take workspaces in, or undefined where the host cannot mount. */
  private slots(): Promise<WorkspaceSlots | undefined> {
    this.slotsOpened ??= WorkspaceSlots.open(join(this.runtimeDir, 'slots', this.identity.instance));
    return this.slotsOpened;
  }

  private get runtimeDir(): string {
    return this.options.runtimeDir ?? join(tmpdir(), 'analyst-run');
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
    await this.engine();
    await this.reap();
  }

  private async startContainer(
    kind: ContainerKind,
    owner: string,
    workspace?: Workspace,
    extra: { preloadModules?: readonly string[]; slot?: boolean } = {},
  ): Promise<SandboxContainer> {
    this.starting += 1;
    try {
      return await this.startContainerNow(kind, owner, workspace, extra);
    } finally {
      this.starting -= 1;
    }
  }

  private async startContainerNow(
    kind: ContainerKind,
    owner: string,
    workspace: Workspace | undefined,
    extra: { preloadModules?: readonly string[]; slot?: boolean },
  ): Promise<SandboxContainer> {
    if (this.closed) throw new SandboxUnavailableError('the sandbox manager is closed');
    await workspace?.ready();
    const slots = extra.slot ? await this.slots() : undefined;
    if (extra.slot && !slots) throw new SandboxUnavailableError('no workspace slots on this host');
    const { cpuCount } = await this.engine();
    this.cpus ??= new CpuAssigner(cpuCount);
    const cpu = this.limits.cpus <= 1 ? this.cpus.acquire() : undefined;
    const leaseMs =
      kind === 'ephemeral' ? this.limits.defaultTimeoutMs + this.limits.hostGraceMs + 120_000 : this.leaseMs;
    const name = containerName(kind, owner);
    const slot = slots ? await slots.create(name) : undefined;
    const onRemove = async () => {
      cpu?.release();
      if (slot) await slots!.remove(slot);
    };
    try {
      return await SandboxContainer.start(this.docker, {
        kind,
        image: this.image,
        name,
        // Session and task containers talk over a socket (faster); ephemeral ones mount nothing at all.
        channelDir:
          workspace === undefined && slot === undefined && kind !== 'task'
            ? undefined
            : join(this.runtimeDir, name),
        preloadModules: extra.preloadModules,
        kernelSource: kernelSource().source,
        limits: this.limits,
        labels: containerLabels(this.identity, kind, owner, new Date(this.now() + leaseMs)),
        workspace: workspace?.mount(),
        workspaceRef: workspace,
        workspaceSlot: slot,
        cpuset: cpu?.cpuset,
        onRemove,
        startupTimeoutMs: this.options.startupTimeoutMs ?? 60_000,
        now: this.now,
      });
    } catch (error) {
      await onRemove();
      if (isConnectionError(error) || statusCodeOf(error) === 404) {
        // The engine went away or the image was removed since the last check: say which.
        this.engineCheck.reset();
        await this.engine();
      }
      throw error;
    }
  }

  private engine(): Promise<{ cpuCount: number }> {
    return this.engineCheck.check();
  }

  private unavailable(error: unknown): ExecResult {
    if (error instanceof SandboxUnavailableError) return hostResult('unavailable', error.message);
    if (isAnalystError(error)) throw error;
    if (isConnectionError(error))
      return hostResult('unavailable', unavailableFromError(error, this.endpoint).message);
    const message = scrubHostPaths((error as Error).message, [this.endpoint.socketPath]);
    return hostResult('unavailable', `the sandbox could not be started: ${message}`);
  }
}

/** A manager that has reaped leftovers and started filling its pools. */
export async function createDockerSandbox(options: DockerSandboxOptions = {}): Promise<DockerSandboxManager> {
  const manager = new DockerSandboxManager(options);
  await manager.start();
  return manager;
}
