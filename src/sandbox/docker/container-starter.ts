import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Workspace } from '../../workspace/workspace.ts';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.ts';
import { kernelSource } from '../kernel-source.ts';
import type { SandboxLimits } from '../limits.ts';
import { CpuAssigner } from './cpu-assigner.ts';
import type { DockerEndpoint } from './endpoint.ts';
import { isConnectionError, statusCodeOf } from './engine.ts';
import { EngineCheck } from './engine-check.ts';
import { type ContainerKind, containerLabels, containerName, type ProcessIdentity } from './labels.ts';
import { SandboxContainer } from './sandbox-container.ts';
import { WorkspaceSlots } from './workspace-slots.ts';

export interface ContainerStarterOptions {
  docker: Docker;
  endpoint: DockerEndpoint;
  image: string;
  /** Written on every container's labels, so reapers can tell whose it is. */
  identity: ProcessIdentity;
  limits: SandboxLimits;
  /** Lease written on session, pool and task containers (ephemeral ones get one call's time). */
  leaseMs: number;
  /** Where kernel sockets and workspace slots are made. */
  runtimeDir: string;
  startupTimeoutMs: number;
  now: () => number;
}

/** What a container is started with, besides its kind and owner. */
export interface StartExtras {
  /** Modules the kernel imports before its hello (task containers). */
  preloadModules?: readonly string[];
  /** Start on an empty workspace slot, to take a thread's workspace later. */
  slot?: boolean;
}

/**
 * Starts sandbox containers: checks the engine and image, pins a CPU, makes a workspace slot
 * or a kernel socket directory where the kind needs one, and writes the labels and lease. What
 * a start took (CPU, slot) is given back when its container is removed.
 */
export class ContainerStarter {
  private readonly engineCheck: EngineCheck;
  private cpus: CpuAssigner | undefined;
  private slotsOpened: Promise<WorkspaceSlots | undefined> | undefined;
  private startingNow = 0;
  private refusing = false;

  constructor(private readonly options: ContainerStarterOptions) {
    this.engineCheck = new EngineCheck(options.docker, options.endpoint, options.image, options.now);
  }

  /** Containers being started now (status: what shares the CPU with cells). */
  get starting(): number {
    return this.startingNow;
  }

  /** Resolves with the engine's CPU count; rejects with SandboxUnavailableError. */
  engine(): Promise<{ cpuCount: number }> {
    return this.engineCheck.check();
  }

  /** The slots warm session containers take workspaces in, or undefined where the host cannot mount. */
  slots(): Promise<WorkspaceSlots | undefined> {
    this.slotsOpened ??= WorkspaceSlots.open(this.slotsRoot);
    return this.slotsOpened;
  }

  /** Frees the slots a killed process of this host left mounted (each holds a workspace). */
  removeLeftoverSlots(): Promise<void> {
    return WorkspaceSlots.removeLeftovers(
      join(this.options.runtimeDir, 'slots'),
      this.options.identity.instance,
    );
  }

  /** From now on every start fails with SandboxUnavailableError (the manager is closing). */
  refuseStarts(): void {
    this.refusing = true;
  }

  /** Unmounts the slots; call once every container on them is removed. */
  async closeSlots(): Promise<void> {
    await (await this.slotsOpened)?.close();
  }

  async start(
    kind: ContainerKind,
    owner: string,
    workspace?: Workspace,
    extras: StartExtras = {},
  ): Promise<SandboxContainer> {
    this.startingNow += 1;
    try {
      return await this.startNow(kind, owner, workspace, extras);
    } finally {
      this.startingNow -= 1;
    }
  }

  private get slotsRoot(): string {
    return join(this.options.runtimeDir, 'slots', this.options.identity.instance);
  }

  private async startNow(
    kind: ContainerKind,
    owner: string,
    workspace: Workspace | undefined,
    extras: StartExtras,
  ): Promise<SandboxContainer> {
    if (this.refusing) throw new SandboxUnavailableError('the sandbox manager is closed');
    const { limits, now } = this.options;
    await workspace?.ready();
    const slots = extras.slot ? await this.slots() : undefined;
    if (extras.slot && !slots) throw new SandboxUnavailableError('no workspace slots on this host');
    const { cpuCount } = await this.engine();
    this.cpus ??= new CpuAssigner(cpuCount);
    const cpu = limits.cpus <= 1 ? this.cpus.acquire() : undefined;
    const leaseMs =
      kind === 'ephemeral' ? limits.defaultTimeoutMs + limits.hostGraceMs + 120_000 : this.options.leaseMs;
    const name = containerName(kind, owner);
    const slot = slots ? await slots.create(name) : undefined;
    const onRemove = async () => {
      cpu?.release();
      if (slot) await slots!.remove(slot);
    };
    try {
      return await SandboxContainer.start(this.options.docker, {
        kind,
        image: this.options.image,
        name,
        // Session and task containers talk over a socket (faster); ephemeral ones mount nothing at all.
        channelDir:
          workspace === undefined && slot === undefined && kind !== 'task'
            ? undefined
            : join(this.options.runtimeDir, name),
        preloadModules: extras.preloadModules,
        kernelSource: kernelSource().source,
        limits,
        labels: containerLabels(this.options.identity, kind, owner, new Date(now() + leaseMs)),
        workspace: workspace?.mount(),
        workspaceRef: workspace,
        workspaceSlot: slot,
        cpuset: cpu?.cpuset,
        onRemove,
        startupTimeoutMs: this.options.startupTimeoutMs,
        now,
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
}
