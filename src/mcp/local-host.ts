import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidInputError } from '../errors/index.ts';
import { randomHex } from '../ids/random-hex.ts';
import type { ModelRegistry } from '../llm/registry.ts';
import { ReportService } from '../report/report-service.ts';
import { RunService } from '../runs/run-service.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { storeThreads } from '../threads/store-threads.ts';
import { userDirectoryWorkspace } from '../workspace/index.ts';
import type { McpHost } from './host.ts';

export interface LocalHostOptions {
  /** The user's directory: the workspace the tools work on. */
  directory: string;
  sandbox: SandboxManager;
  registry: ModelRegistry;
  disallowedTools: ReadonlySet<string>;
}

/**
 * The MCP host of `analyst mcp --workspace DIR`: the user's own directory is the thread's
 * workspace, cells run in a session sandbox on it (query) or in fresh ones (python_exec),
 * and run_analysis goes through a run service of its own, whose records live in a
 * temporary database for the life of the process.
 *
 * A plain directory is not a filesystem of its own, so the host reads it only between
 * cells: every listing, resource read, query and analysis takes one gate, in turn. A cell's
 * processes are gone (or stopped) when its result comes back, so nothing in the directory
 * changes while the host reads it.
 */
export async function openLocalHost(
  options: LocalHostOptions,
): Promise<{ host: McpHost; close(): Promise<void> }> {
  let directory: string;
  try {
    directory = await realpath(options.directory);
  } catch {
    throw new InvalidInputError(`workspace directory ${options.directory} does not exist: create it first`, {
      param: 'workspace',
    });
  }
  const workspace = await userDirectoryWorkspace(directory);
  const stateDir = await mkdtemp(join(tmpdir(), 'analyst-mcp-'));
  const store = new SqliteStore(join(stateDir, 'analyst.db'));
  const thread = await store.createThread({
    id: `thread-${randomHex(12)}`,
    owner: 'local',
    workspace: workspace.id,
    title: null,
    metadata: { created_by: 'mcp', directory },
  });
  const runs = new RunService({
    store,
    sandbox: options.sandbox,
    threads: storeThreads(store, async () => workspace),
    models: options.registry,
    disallowedTools: new Set(options.disallowedTools),
  });
  const reports = new ReportService(store);
  const closing = new AbortController();
  let gate: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = gate.then(work);
    gate = result.catch(() => {});
    return result;
  };
  const fileUrl = (path: string) => pathToFileURL(join(directory, ...path.split('/'))).href;
  const host: McpHost = {
    thread: async () => thread,
    currentThread: async () => thread,
    withWorkspace: (_thread, work) => inTurn(() => work(workspace)),
    withCell: (_thread, work) => inTurn(() => work(workspace, closing.signal)),
    sandbox: options.sandbox,
    runs,
    disallowedTools: options.disallowedTools,
    fileUrl: (_thread, path) => fileUrl(path),
    document: (_thread, kind) =>
      inTurn(() =>
        kind === 'notebook.ipynb'
          ? reports.notebook(thread, workspace)
          : reports.report(
              thread,
              workspace,
              kind === 'report.md' ? 'md' : 'html',
              `${pathToFileURL(directory).href}/`,
            ),
      ),
  };
  return {
    host,
    async close() {
      closing.abort();
      await runs.shutdown();
      await store.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}
