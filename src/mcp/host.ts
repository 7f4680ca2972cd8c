import type { RunConnections } from '../agent/connections.ts';
import type { RunService } from '../runs/run-service.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { ThreadRecord } from '../store/store.ts';
import type { Workspace } from '../workspace/workspace.ts';

/**
 * What Analyst's MCP server needs from the Analyst it fronts (docs/spec.md#front-ends). Two hosts implement
 * it: the service's (`/mcp` on `analyst serve`, one owner's thread) and a local one
 * (`analyst mcp --workspace DIR`, a directory of the user's own). The tools and resources
 * are written once against this.
 */
export interface McpHost {
  /**
   * The thread this MCP session works on. A session that was not given one gets a thread
   * of its own the first time it needs one.
   */
  thread(): Promise<ThreadRecord>;
  /** The thread, if the session has one yet (listing resources creates none). */
  currentThread(): Promise<ThreadRecord | undefined>;
  /**
   * Runs host work on the thread's workspace (listing, reading) at a moment no cell can be
   * changing it. The service's workspaces are safe at any moment (each is a filesystem of
   * its own); a plain directory of the user's is read only between cells.
   */
  withWorkspace<T>(thread: ThreadRecord, work: (workspace: Workspace) => Promise<T>): Promise<T>;
  /**
   * Runs a cell's work on the thread: it may run while nothing else reads the workspace, and
   * deleting the thread stops it (`signal`) and waits for it.
   */
  withCell<T>(
    thread: ThreadRecord,
    work: (workspace: Workspace, signal: AbortSignal) => Promise<T>,
  ): Promise<T>;
  sandbox: SandboxManager;
  runs: RunService;
  /** The database connections the session's key may use (docs/connections.md); absent for a local host. */
  connections?: RunConnections;
  /** Tools hidden from clients (DISALLOWED_TOOLS). */
  disallowedTools: ReadonlySet<string>;
  /** A link a person can open for a workspace file (a download URL, or a file:// URL). */
  fileUrl(thread: ThreadRecord, path: string): string;
  /** The thread's report (Markdown or HTML) and notebook, rendered from its events. */
  document(thread: ThreadRecord, kind: 'report.md' | 'report.html' | 'notebook.ipynb'): Promise<Buffer>;
}
