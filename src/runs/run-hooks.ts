import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { ThreadRecord } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';

/**
 * What the run service asks of the layers around it, as objects the composition root hands
 * it (`src/server/service.ts`): each is implemented by a class of the layer that owns the
 * concern, and a run service of one process (`analyst run`, MCP on a directory) takes none.
 */

/** Who may run what: per-key limits (`src/server/limits/run-policy.ts` on the server). */
export interface RunPolicy {
  /** How many runs the owner may have going at once (counted by the store); undefined: no limit. */
  maxRunsFor(owner: string): number | undefined;
  /**
   * Checked before a run is claimed in the store (throw to refuse, e.g. LimitExceededError);
   * what it returns is called when the run ends.
   */
  admit(thread: ThreadRecord): Promise<(() => void) | undefined>;
  /** The sandbox the thread's run uses (e.g. one that waits for the owner's one-shot slots). */
  sandboxFor(thread: ThreadRecord): SandboxManager;
}

/**
 * Work a finished run leaves (reports, the workspace's usage), done after `run-end` went out
 * and before the thread's next run starts. The server's are `ReportService` and `ThreadService`.
 */
export interface AfterRun {
  afterRun(thread: ThreadRecord, workspace: Workspace): Promise<void>;
}

/** Told what nobody awaits: background failures and runs of dead replicas (`src/server/run-monitor.ts`). */
export interface RunMonitor {
  /** Work no caller waits for failed (a store write after a run, a report, a lease renewal). */
  error(error: unknown): void;
  /** Runs of replicas that died were marked interrupted (e.g. to reap their sandboxes). */
  interrupted(runIds: string[]): void;
}
