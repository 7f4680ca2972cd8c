import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadModelRegistry, type ModelRegistry } from '../llm/registry.ts';
import { createDockerSandbox, type DockerSandboxOptions } from '../sandbox/docker/manager.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { buildApp } from './app.ts';
import type { ServerConfig } from './config.ts';
import type { AppDeps } from './deps.ts';
import { FileStorage } from './services/file-storage.ts';
import { ReportService } from './services/report-service.ts';
import { RunManager } from './services/run-manager.ts';
import { ThreadService } from './services/thread-service.ts';

export interface Service {
  app: FastifyInstance;
  deps: AppDeps;
  /** The URL the server listens on (after `listen`). */
  url: string;
  listen(): Promise<string>;
  /** Stops taking requests, cancels running analyses, removes sandboxes, closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the whole service on a data directory: SQLite store, uploaded files, workspaces,
 * Docker sandboxes and the HTTP app. Runs a crashed server left unfinished are marked
 * `interrupted`, and their containers are reaped, before anything is served.
 */
export async function createService(
  config: ServerConfig,
  options: {
    registry?: ModelRegistry;
    sandbox?: DockerSandboxOptions;
    logger?: boolean | { level: string };
  } = {},
): Promise<Service> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const store = new SqliteStore(join(config.dataDir, 'analyst.db'));
  const interrupted = await store.markInterruptedRuns();
  const files = new FileStorage(join(config.dataDir, 'files'));
  await files.init();
  const sandbox = await createDockerSandbox({
    pool: config.pool,
    workspacesDir: join(config.dataDir, 'workspaces'),
    runtimeDir: join(config.dataDir, 'run'),
    ...options.sandbox,
  });
  const registry = options.registry ?? loadModelRegistry({ env: process.env });
  const reports = new ReportService(store);
  let app: FastifyInstance | undefined;
  const runs = new RunManager(store, sandbox, {
    disallowedTools: config.disallowedTools,
    afterRun: (thread) => reports.write(thread),
    onError: (error) => app?.log.warn({ err: error }, 'after-run work failed'),
  });
  const threads = new ThreadService(store, sandbox, files);
  const deps: AppDeps = { config, store, sandbox, registry, files, threads, runs, reports };
  app = await buildApp(deps, { logger: options.logger });
  if (interrupted.length)
    app.log.warn({ runs: interrupted }, 'marked runs left unfinished by a previous server as interrupted');

  let closing: Promise<void> | undefined;
  const service: Service = {
    app,
    deps,
    url: '',
    async listen() {
      const address = await app.listen({ host: config.host, port: config.port });
      service.url = address.replace('[::1]', '127.0.0.1');
      return service.url;
    },
    close() {
      closing ??= (async () => {
        await runs.shutdown();
        await app.close();
        await sandbox.close();
        await store.close();
      })();
      return closing;
    },
  };
  return service;
}
