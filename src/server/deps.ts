import type { ConnectionRegistry } from '../connections/registry.ts';
import type { ModelRegistry } from '../llm/registry.ts';
import type { ReportService } from '../report/report-service.ts';
import type { RunService } from '../runs/run-service.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import type { Store } from '../store/store.ts';
import type { ThreadService } from '../threads/thread-service.ts';
import type { WorkspaceStore } from '../workspace/workspace.ts';
import type { ServerConfig } from './config.ts';
import type { KeyLimiter } from './limits/key-limiter.ts';
import type { FileStorage } from './services/file-storage.ts';

/** What the routes use; built once by `createService`, injected so tests can build their own. */
export interface AppDeps {
  config: ServerConfig;
  store: Store;
  sandbox: SandboxManager;
  workspaces: WorkspaceStore;
  registry: ModelRegistry;
  files: FileStorage;
  threads: ThreadService;
  runs: RunService;
  reports: ReportService;
  limits: KeyLimiter;
  /** The operator's database connections (ANALYST_CONNECTIONS_FILE). */
  connections: ConnectionRegistry;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key's owner id, or `local` in open mode. Set for every /v1 route. */
    owner: string;
  }
}
