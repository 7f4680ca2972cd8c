import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import {
  type KernelCellOutcome,
  KernelChannel,
  type KernelHello,
  type KernelRunRequest,
} from '../kernel-channel.ts';
import { type SandboxContainerOptions, sandboxContainerSpec } from './container-spec.ts';
import type { ContainerKind } from './labels.ts';

/** A started sandbox container with a warm kernel on the other end of its attach stream. */
export class SandboxContainer {
  lastUsedAt: number;
  private removing: Promise<void> | undefined;

  private constructor(
    private readonly handle: Docker.Container,
    readonly name: string,
    readonly kind: ContainerKind,
    readonly workspaceDir: string | undefined,
    readonly createdAt: number,
    readonly channel: KernelChannel,
    readonly hello: KernelHello,
  ) {
    this.lastUsedAt = createdAt;
  }

  /**
   * Creates, attaches and starts a container and waits for its kernel's hello.
   * On any failure the container is removed and the error rethrown.
   */
  static async start(
    docker: Docker,
    options: SandboxContainerOptions & { kind: ContainerKind; startupTimeoutMs: number; now: () => number },
  ): Promise<SandboxContainer> {
    const handle = await docker.createContainer(sandboxContainerSpec(options));
    let channel: KernelChannel | undefined;
    try {
      // Attach before start so not a byte of the kernel's output is missed.
      const stream = (await handle.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as unknown as Duplex;
      channel = new KernelChannel(stream);
      await handle.start();
      const hello = await withTimeout(
        channel.ready,
        options.startupTimeoutMs,
        `the sandbox kernel did not start within ${options.startupTimeoutMs / 1000} s`,
      );
      return new SandboxContainer(
        handle,
        options.name,
        options.kind,
        options.workspaceDir,
        options.now(),
        channel,
        hello,
      );
    } catch (error) {
      const detail = channel?.stderr.trim();
      channel?.close();
      await removeQuietly(handle);
      if (detail && error instanceof Error) error.message += `\nkernel stderr:\n${detail.slice(-2000)}`;
      throw error;
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
      this.removing = removeQuietly(this.handle);
    }
    return this.removing;
  }
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
