import { SandboxUnavailableError } from './errors/sandbox-unavailable-error.ts';
import { hostResult } from './exec-result.ts';
import { validateCode } from './limits.ts';
import type { AllocatedWorkspace, ExecResult, SandboxManager, SandboxStatus, TaskPool } from './sandbox.ts';

/**
 * The sandbox when execution is turned off (`ANALYST_SANDBOX=off`, e.g. the Compose set-up
 * without the engine socket): every cell is `unavailable` with the reason, so the rest of
 * the service (files, threads, reports, the paths that need no code) keeps working.
 */
export class DisabledSandbox implements SandboxManager {
  constructor(private readonly reason: string) {}

  async runCell(_session: unknown, request: { code: string }): Promise<ExecResult> {
    validateCode(request.code);
    return hostResult('unavailable', this.reason);
  }

  async runEphemeral(request: { code: string; sourceQueryIds?: string[] }): Promise<ExecResult> {
    validateCode(request.code);
    return hostResult('unavailable', this.reason, { sourceQueryIds: request.sourceQueryIds });
  }

  async allocateWorkspace(): Promise<AllocatedWorkspace> {
    throw new SandboxUnavailableError(this.reason);
  }

  async createTaskPool(): Promise<TaskPool> {
    throw new SandboxUnavailableError(this.reason);
  }

  async closeSession(): Promise<void> {}
  async releaseWorkspace(): Promise<void> {}

  async status(): Promise<SandboxStatus> {
    return {
      endpoint: 'none',
      image: 'none',
      available: false,
      message: this.reason,
      sessions: 0,
      pool: { session: 0, ephemeral: 0 },
    };
  }

  async reap(): Promise<string[]> {
    return [];
  }

  async close(): Promise<void> {}
}
