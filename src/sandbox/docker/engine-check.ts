import type Docker from 'dockerode';
import type { DockerEndpoint } from './endpoint.ts';
import { checkEngine } from './engine.ts';

/** How long a failed check is trusted before the engine is asked again. */
const RECHECK_AFTER_FAILURE_MS = 2_000;

/**
 * The engine-and-image check, remembered: a success until `reset()` (e.g. after a call
 * failed because the engine went away), a failure for two seconds, so a burst of cells
 * against a stopped engine asks it once, and starting the engine is noticed at once after.
 */
export class EngineCheck {
  private last: { at: number; result: Promise<{ cpuCount: number }>; failed: boolean } | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly endpoint: DockerEndpoint,
    private readonly image: string,
    private readonly now: () => number,
  ) {}

  /** Resolves with the engine's CPU count; rejects with SandboxUnavailableError. */
  check(): Promise<{ cpuCount: number }> {
    const now = this.now();
    if (!this.last || (this.last.failed && now - this.last.at > RECHECK_AFTER_FAILURE_MS)) {
      const result = checkEngine(this.docker, this.endpoint, this.image);
      const entry = { at: now, result, failed: false };
      result.catch(() => {
        entry.failed = true;
      });
      this.last = entry;
    }
    return this.last.result;
  }

  reset(): void {
    this.last = undefined;
  }
}
