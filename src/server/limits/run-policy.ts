import type { RunPolicy } from '../../runs/run-hooks.ts';
import type { SandboxManager } from '../../sandbox/sandbox.ts';
import type { ThreadRecord } from '../../store/store.ts';
import type { KeyLimiter } from './key-limiter.ts';
import { limitedSandbox } from './limited-sandbox.ts';

/**
 * Per-key limits as the run service's `RunPolicy`: the owner's running runs (counted by the
 * store), stored bytes and sessions checked before a run is claimed, and its one-shot
 * sandboxes taken through the key's slots (`KeyLimitedSandbox`).
 */
export class KeyRunPolicy implements RunPolicy {
  constructor(
    private readonly limits: KeyLimiter,
    private readonly sandbox: SandboxManager,
  ) {}

  maxRunsFor(owner: string): number | undefined {
    return this.limits.runsFor(owner);
  }

  async admit(thread: ThreadRecord): Promise<(() => void) | undefined> {
    await this.limits.storedBytesLeft(thread.owner);
    return this.limits.admitSession(thread.owner, thread.id);
  }

  sandboxFor(thread: ThreadRecord): SandboxManager {
    return limitedSandbox(this.sandbox, this.limits, thread.owner);
  }
}
