import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { InvalidInputError, isAnalystError } from '../../errors/index.ts';
import type { Workspace, WorkspaceStore } from '../../workspace/workspace.ts';
import { prepareInjectedInput } from '../data-injection.ts';
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
import { runOnContainer } from './run-on-container.ts';
import { SandboxContainer } from './sandbox-container.ts';
import { Session } from './session.ts';
import { DockerTaskPool } from './task-pool.ts';
import { WarmPool } from './warm-pool.ts';

export interface DockerSandboxOptions {
  /** Default: PYTHON_SANDBOX_IMAGE, else `analyst-sandbox:latest`. */
  image?: string;
  /** Default: discovered per SPEC §3.1. */
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
  /** A session container unused this long is removed. Default 30 min. */
  idleTtlMs?: number;
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
  private readonly sessions = new Map<string, Session>();
  /** Pooled session containers handed out by allocateWorkspace, by workspace id. */
  private readonly claimed = new Map<string, SandboxContainer>();
  private readonly ephemeral = new Set<SandboxContainer>();
  private readonly taskPools = new Set<DockerTaskPool>();
  /** Removals under way, so close() returns only when every container is gone. */
  private readonly removals = new Set<Promise<void>>();
  private readonly sessionPool: WarmPool;
  private readonly ephemeralPool: WarmPool;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly engineCheck: EngineCheck;
  private cpus: CpuAssigner | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: DockerSandboxOptions = {}) {
    this.image = options.image ?? sandboxImage();
    this.endpoint = options.endpoint ?? resolveDockerEndpoint();
    this.docker = options.docker ?? dockerClient(this.endpoint);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
    this.engineCheck = new EngineCheck(this.docker, this.endpoint, this.image, this.now);
    this.identity = currentProcessIdentity(`${process.pid}-${randomBytes(6).toString('hex')}`);
    const maxAgeMs = this.leaseMs - LEASE_MARGIN_MS;
    this.sessionPool = new WarmPool({
      size: options.workspaces ? (options.pool?.session ?? 0) : 0,
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      // A pooled container no thread took away: its empty workspace goes with it.
      retire: (container) => this.retire(container, { withWorkspace: true }),
      create: async () => {
        const workspace = await this.workspaceStore().create();
        try {
          return await this.startContainer('pool-session', 'pool', workspace);
        } catch (error) {
          await this.workspaceStore()
            .destroy(workspace.id)
            .catch(() => {});
          throw error;
        }
      },
    });
    this.ephemeralPool = new WarmPool({
      size: options.pool?.ephemeral ?? 0,
      maxAgeMs,
      now: this.now,
      onError: this.onError,
      retire: (container) => this.retire(container),
      create: () => this.startContainer('pool-ephemeral', 'pool'),
    });
  }

  /** Written on every container this manager makes (label dev.analyst.instance). */
  get instanceId(): string {
    return this.identity.instance;
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 6 * 3600_000;
  }

  /** Reaps leftovers of crashed processes, fills the pools and starts the periodic sweep. */
  async start(): Promise<void> {
    try {
      await this.engine();
      await this.reap();
      void this.sessionPool.fill();
      void this.ephemeralPool.fill();
    } catch (error) {
      this.onError(error); // No engine yet: cells will say so; the sweep retries.
    }
    const interval = this.options.reapIntervalMs ?? 60_000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.sweep().catch(this.onError), interval);
      this.timer.unref();
    }
  }

  async runCell(ref: SessionRef, request: CellRequest): Promise<ExecResult> {
    validateCode(request.code);
    const timeoutMs = resolveTimeoutMs(request.timeoutMs, this.limits);
    resolveMaxOutputBytes(request.maxOutputBytes, this.limits);
    if (this.options.sessionsUnavailable) return hostResult('unavailable', this.options.sessionsUnavailable);
    let session = this.sessions.get(ref.id);
    if (!session || session.workspace.id !== ref.workspace.id) {
      if (session?.container) this.retire(session.container);
      session = new Session(ref.id, ref.workspace);
      this.sessions.set(ref.id, session);
    }
    const current = session;
    return current.enqueue(async () => {
      let container: SandboxContainer;
      try {
        container = await this.sessionContainer(current);
      } catch (error) {
        return this.unavailable(error);
      }
      const result = await runOnContainer(container, request, {
        timeoutMs,
        limits: this.limits,
        stateful: ref.stateful ?? false,
      });
      if (!container.alive) {
        current.container = undefined;
        this.retire(container);
      }
      return result;
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
        this.ephemeralPool.take() ??
        (await this.startContainer('ephemeral', `call-${randomBytes(6).toString('hex')}`));
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
    const owner = `pool-${randomBytes(4).toString('hex')}`;
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
    const pooled = this.sessionPool.take();
    if (pooled?.workspace) {
      this.claimed.set(pooled.workspace.id, pooled);
      return { workspace: pooled.workspace, warm: true };
    }
    return { workspace: await this.workspaceStore().create(), warm: false };
  }

  liveSessions(): LiveSession[] {
    const live: LiveSession[] = [];
    for (const session of this.sessions.values()) {
      const container = session.container;
      if (container?.alive)
        live.push({ id: session.id, busy: session.busy, lastUsedAt: container.lastUsedAt });
    }
    return live;
  }

  async closeSession(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    await session?.close();
  }

  async releaseWorkspace(workspaceId: string): Promise<void> {
    const claimed = this.claimed.get(workspaceId);
    this.claimed.delete(workspaceId);
    const bound = [...this.sessions].filter(([, session]) => session.workspace.id === workspaceId);
    for (const [id] of bound) this.sessions.delete(id);
    await Promise.all([claimed?.remove(), ...bound.map(([, session]) => session.close())]);
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
      sessions: [...this.sessions.values()].filter((s) => s.container?.alive).length,
      pool: { session: this.sessionPool.readyCount, ephemeral: this.ephemeralPool.readyCount },
    };
  }

  async reap(): Promise<string[]> {
    const inUse = new Set<string>([...this.sessionPool.names(), ...this.ephemeralPool.names()]);
    for (const session of this.sessions.values()) if (session.container) inUse.add(session.container.name);
    for (const container of this.claimed.values()) inUse.add(container.name);
    for (const container of this.ephemeral) inUse.add(container.name);
    for (const pool of this.taskPools) for (const name of pool.names()) inUse.add(name);
    return reapContainers(this.docker, { self: this.identity, now: new Date(this.now()), inUse });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([
      this.sessionPool.close(),
      this.ephemeralPool.close(),
      ...[...this.sessions.values()].map((s) => s.close()),
      ...[...this.claimed.values()].map((c) => c.remove()),
      ...[...this.ephemeral].map((c) => c.remove()),
      ...[...this.taskPools].map((p) => p.close()),
    ]);
    await Promise.all([...this.removals]);
    this.sessions.clear();
    this.claimed.clear();
  }

  /** Removes a container (and, for an unused pooled one, its workspace) in the background; close() waits. */
  private retire(container: SandboxContainer, options: { withWorkspace?: boolean } = {}): void {
    const workspace = options.withWorkspace ? container.workspace : undefined;
    const removal = container
      .remove()
      .then(() => (workspace ? this.options.workspaces?.destroy(workspace.id) : undefined))
      .catch(this.onError)
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  private workspaceStore(): WorkspaceStore {
    if (!this.options.workspaces) {
      throw new SandboxUnavailableError('this sandbox manager was made without a workspace store');
    }
    return this.options.workspaces;
  }

  /** Removes idle session containers, replaces aging pooled ones, reaps others' leftovers. */
  async sweep(): Promise<void> {
    const now = this.now();
    const idleTtlMs = this.options.idleTtlMs ?? 30 * 60_000;
    for (const [id, session] of this.sessions) {
      if (!session.busy && (!session.container || now - session.container.lastUsedAt >= idleTtlMs)) {
        this.sessions.delete(id);
        await session.close();
      }
    }
    for (const [dir, container] of this.claimed) {
      if (!container.alive || now - container.lastUsedAt >= idleTtlMs) {
        this.claimed.delete(dir);
        await container.remove();
      }
    }
    this.sessionPool.retireOld();
    this.ephemeralPool.retireOld();
    await this.engine();
    await this.reap();
  }

  private async sessionContainer(session: Session): Promise<SandboxContainer> {
    const current = session.container;
    if (current?.alive && this.now() - current.createdAt < this.leaseMs - LEASE_MARGIN_MS) return current;
    if (current) this.retire(current);
    session.container = undefined;
    const claimed = this.claimed.get(session.workspace.id);
    this.claimed.delete(session.workspace.id);
    if (claimed?.alive) {
      void claimed.rename(containerName('session', session.id));
      session.container = claimed;
    } else {
      if (claimed) this.retire(claimed);
      session.container = await this.startContainer('session', session.id, session.workspace);
    }
    return session.container;
  }

  private async startContainer(
    kind: ContainerKind,
    owner: string,
    workspace?: Workspace,
    extra: { preloadModules?: readonly string[] } = {},
  ): Promise<SandboxContainer> {
    if (this.closed) throw new SandboxUnavailableError('the sandbox manager is closed');
    const { cpuCount } = await this.engine();
    this.cpus ??= new CpuAssigner(cpuCount);
    const cpu = this.limits.cpus <= 1 ? this.cpus.acquire() : undefined;
    const leaseMs =
      kind === 'ephemeral' ? this.limits.defaultTimeoutMs + this.limits.hostGraceMs + 120_000 : this.leaseMs;
    const name = containerName(kind, owner);
    try {
      return await SandboxContainer.start(this.docker, {
        kind,
        image: this.image,
        name,
        // Session and task containers talk over a socket (faster); ephemeral ones mount nothing at all.
        channelDir:
          workspace === undefined && kind !== 'task'
            ? undefined
            : join(this.options.runtimeDir ?? join(tmpdir(), 'analyst-run'), name),
        preloadModules: extra.preloadModules,
        kernelSource: kernelSource().source,
        limits: this.limits,
        labels: containerLabels(this.identity, kind, owner, new Date(this.now() + leaseMs)),
        workspace: workspace?.mount(),
        workspaceRef: workspace,
        cpuset: cpu?.cpuset,
        onRemove: cpu?.release,
        startupTimeoutMs: this.options.startupTimeoutMs ?? 60_000,
        now: this.now,
      });
    } catch (error) {
      cpu?.release();
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
