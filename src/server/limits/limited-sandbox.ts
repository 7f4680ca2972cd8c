import { hostResult } from '../../sandbox/exec-result.ts';
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
} from '../../sandbox/sandbox.ts';
import type { KeyLimiter } from './key-limiter.ts';

/**
 * The sandbox a run of one key sees: the service's own, except that its one-shot cells
 * (`python_exec`) wait for one of the key's one-shot slots — so a key's runs together never
 * hold more one-shot sandboxes than its limit, and none fails for it.
 */
export function limitedSandbox(sandbox: SandboxManager, limiter: KeyLimiter, owner: string): SandboxManager {
  return limiter.applies(owner) ? new KeyLimitedSandbox(sandbox, limiter, owner) : sandbox;
}

/** Every call goes to the service's sandbox; `runEphemeral` first waits for a slot of the key's. */
export class KeyLimitedSandbox implements SandboxManager {
  constructor(
    private readonly sandbox: SandboxManager,
    private readonly limiter: KeyLimiter,
    private readonly owner: string,
  ) {}

  async runEphemeral(request: EphemeralRequest): Promise<ExecResult> {
    let release: () => void;
    try {
      release = await this.limiter.waitOneShot(this.owner, request.abortSignal);
    } catch {
      return hostResult('cancelled', 'the cell was cancelled while it waited for a sandbox', {
        sourceQueryIds: request.sourceQueryIds,
      });
    }
    try {
      return await this.sandbox.runEphemeral(request);
    } finally {
      release();
    }
  }

  runCell(session: SessionRef, request: CellRequest): Promise<ExecResult> {
    return this.sandbox.runCell(session, request);
  }

  allocateWorkspace(): Promise<AllocatedWorkspace> {
    return this.sandbox.allocateWorkspace();
  }

  liveSessions(): LiveSession[] {
    return this.sandbox.liveSessions?.() ?? [];
  }

  createTaskPool(options?: TaskPoolOptions): Promise<TaskPool> {
    return this.sandbox.createTaskPool(options);
  }

  closeSession(id: string): Promise<void> {
    return this.sandbox.closeSession(id);
  }

  releaseWorkspace(workspaceId: string): Promise<void> {
    return this.sandbox.releaseWorkspace(workspaceId);
  }

  status(): Promise<SandboxStatus> {
    return this.sandbox.status();
  }

  reap(): Promise<string[]> {
    return this.sandbox.reap();
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }
}
