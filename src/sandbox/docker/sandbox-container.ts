import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Workspace } from '../../workspace/workspace.ts';
import {
  type KernelCellOutcome,
  KernelChannel,
  type KernelHello,
  type KernelRunRequest,
} from '../kernel-channel.ts';
import { CHANNEL_SOCKET, type SandboxContainerOptions, sandboxContainerSpec } from './container-spec.ts';
import type { ContainerKind } from './labels.ts';

/** A started sandbox container with a warm kernel on the other end of its attach stream. */
export class SandboxContainer {
  lastUsedAt: number;
  /** The name it takes after its next cell (a pooled container that went to a thread). */
  pendingName: string | undefined;
  private removing: Promise<void> | undefined;

  private constructor(
    private readonly handle: Docker.Container,
    readonly name: string,
    readonly kind: ContainerKind,
    /** The workspace at /workspace: bound at start, or attached to the slot later. */
    public workspace: Workspace | undefined,
    /** The host slot directory at /workspace, for containers that take a workspace later. */
    readonly slot: string | undefined,
    readonly createdAt: number,
    readonly channel: KernelChannel,
    readonly hello: KernelHello,
    private readonly attachStream: Duplex,
    private readonly onRemove: (() => void | Promise<void>) | undefined,
  ) {
    this.lastUsedAt = createdAt;
  }

  /**
   * Creates, attaches and starts a container and waits for its kernel's hello.
   * On any failure the container is removed and the error rethrown.
   */
  static async start(
    docker: Docker,
    options: SandboxContainerOptions & {
      kind: ContainerKind;
      /** The workspace mounted at /workspace (session containers). */
      workspaceRef?: Workspace;
      startupTimeoutMs: number;
      now: () => number;
      /** Called once when the container is removed (e.g. to free its CPU and its slot); awaited. */
      onRemove?: () => void | Promise<void>;
    },
  ): Promise<SandboxContainer> {
    const listener = options.channelDir ? await listenForKernel(options.channelDir) : undefined;
    let channel: KernelChannel | undefined;
    let handle: Docker.Container | undefined;
    try {
      handle = await docker.createContainer(sandboxContainerSpec(options));
      // Attach before start so not a byte of the kernel's output is missed.
      const attachStream = (await handle.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as unknown as Duplex;
      if (!listener) channel = new KernelChannel(attachStream);
      await handle.start();
      const deadline = `the sandbox kernel did not start within ${options.startupTimeoutMs / 1000} s`;
      if (listener) {
        const socket = await withTimeout(listener.connection, options.startupTimeoutMs, deadline);
        channel = new KernelChannel(socket, false);
        channel.attachDiagnostics(attachStream);
      }
      const hello = await withTimeout(channel!.ready, options.startupTimeoutMs, deadline);
      const container = new SandboxContainer(
        handle,
        options.name,
        options.kind,
        options.workspaceRef,
        options.workspaceSlot,
        options.now(),
        channel!,
        hello,
        attachStream,
        options.onRemove,
      );
      return container;
    } catch (error) {
      const detail = channel?.stderr.trim();
      channel?.close();
      if (handle) await removeQuietly(handle);
      if (detail && error instanceof Error) error.message += `\nkernel stderr:\n${detail.slice(-2000)}`;
      throw error;
    } finally {
      await listener?.close();
    }
  }

  get alive(): boolean {
    return !this.channel.closed && this.removing === undefined;
  }

  run(
    request: KernelRunRequest,
    data?: Buffer,
    onOutput?: (chunk: Buffer) => void,
  ): Promise<KernelCellOutcome> {
    return this.channel.run(request, data, onOutput);
  }

  cancel(cellId: string): void {
    this.channel.cancel(cellId);
  }

  /** Docker names can change; labels cannot. Used to show which thread a pooled container went to. */
  async rename(name: string): Promise<void> {
    await this.handle.rename({ name }).catch(() => {});
  }

  /** Ends the kernel and removes the container (idempotent, never throws). */
  remove(): Promise<void> {
    if (!this.removing) {
      this.channel.close();
      this.attachStream.destroy();
      this.removing = removeQuietly(this.handle).finally(() => this.onRemove?.());
    }
    return this.removing;
  }
}

/**
 * A one-connection unix socket for the kernel's channel. The kernel connects at start,
 * before any cell can run; then the socket file and its directory are removed, so nothing
 * a cell finds in /run/analyst can reach the host.
 */
async function listenForKernel(
  dir: string,
): Promise<{ connection: Promise<Socket>; close: () => Promise<void> }> {
  await mkdir(dir, { recursive: true, mode: 0o711 });
  const path = join(dir, CHANNEL_SOCKET);
  const server = createServer();
  let accepted = false;
  const connection = new Promise<Socket>((resolve) => {
    server.on('connection', (socket) => {
      if (accepted) {
        socket.destroy();
        return;
      }
      accepted = true;
      server.close();
      resolve(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  await chmod(path, 0o666);
  if (process.getuid?.() === 0) await chown(dir, 65534, 65534);
  return {
    connection,
    close: async () => {
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function removeQuietly(handle: Docker.Container): Promise<void> {
  try {
    await handle.remove({ force: true });
  } catch {
    // Already gone (AutoRemove won the race) or the engine is down: the reaper catches leftovers.
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
