import { runConnections } from '../agent/connections.ts';
import type { McpHost } from '../mcp/host.ts';
import type { ThreadRecord } from '../store/store.ts';
import type { AppDeps } from './deps.ts';
import { baseUrl, threadFileUrl } from './file-links.ts';

/**
 * The MCP host of `/mcp` on `analyst serve`: one owner (the API key's), one thread — the
 * one the session was opened on (`?thread_id=`), or one made for the session the first time
 * a tool needs it. Everything goes through the service: the thread service (ownership,
 * deletion), workspaces, the sandbox manager and the run service.
 */
export function serviceHost(deps: AppDeps, owner: string, threadId: string | undefined): McpHost {
  let made: Promise<ThreadRecord> | undefined;
  let id = threadId;
  const current = async (): Promise<ThreadRecord | undefined> =>
    id === undefined ? undefined : deps.threads.get(owner, id);
  return {
    async thread() {
      if (id !== undefined) return deps.threads.get(owner, id);
      made ??= deps.threads.create(owner, { metadata: { created_by: 'mcp' } }).then((thread) => {
        id = thread.id;
        return thread;
      });
      return made;
    },
    currentThread: current,
    async withWorkspace(thread, work) {
      return work(await deps.threads.workspace(thread));
    },
    async withCell(thread, work) {
      // Deleting the thread stops this work and waits for it before the workspace goes.
      const operation = deps.threads.locks.beginWrite(thread.id);
      try {
        return await work(await deps.threads.workspace(thread), operation.signal);
      } finally {
        operation.end();
      }
    },
    sandbox: deps.sandbox,
    runs: deps.runs,
    connections: runConnections(
      deps.connections,
      owner,
      deps.connections.list(owner).map((c) => c.id),
    ),
    disallowedTools: deps.config.disallowedTools,
    fileUrl: (thread, path) => threadFileUrl(baseUrl(deps.config), thread.id, path),
    async document(thread, kind) {
      const workspace = await deps.threads.workspace(thread);
      if (kind === 'notebook.ipynb') return deps.reports.notebook(thread, workspace);
      const prefix = threadFileUrl(baseUrl(deps.config), thread.id, '');
      return deps.reports.report(thread, workspace, kind === 'report.md' ? 'md' : 'html', prefix);
    },
  };
}
