import { hostResult } from '../../sandbox/exec-result.ts';
import type { EphemeralRequest, ExecResult, SandboxManager } from '../../sandbox/sandbox.ts';
import type { KeyLimiter } from './key-limiter.ts';

/**
 * The sandbox a run of one key sees: the service's own, except that its one-shot cells
 * (`python_exec`) wait for one of the key's one-shot slots — so a key's runs together never
 * hold more one-shot sandboxes than its limit, and none fails for it.
 */
export function limitedSandbox(sandbox: SandboxManager, limiter: KeyLimiter, owner: string): SandboxManager {
  if (!limiter.applies(owner)) return sandbox;
  return new Proxy(sandbox, {
    get(target, property, receiver) {
      if (property === 'runEphemeral') {
        return async (request: EphemeralRequest): Promise<ExecResult> => {
          let release: () => void;
          try {
            release = await limiter.waitOneShot(owner, request.abortSignal);
          } catch {
            return hostResult('cancelled', 'the cell was cancelled while it waited for a sandbox', {
              sourceQueryIds: request.sourceQueryIds,
            });
          }
          try {
            return await target.runEphemeral(request);
          } finally {
            release();
          }
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
