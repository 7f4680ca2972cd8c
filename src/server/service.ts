import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { QuietTime } from '../background/quiet-time.ts';
import { ConnectionRegistry } from '../connections/registry.ts';
import { ConfigurationError } from '../errors/index.ts';
import { randomHex } from '../ids/random-hex.ts';
import { loadModelRegistry, type ModelRegistry } from '../llm/registry.ts';
import { ReportService } from '../report/report-service.ts';
import { RunService } from '../runs/run-service.ts';
import { DisabledSandbox } from '../sandbox/disabled-sandbox.ts';
import { createDockerSandbox, type DockerSandboxOptions } from '../sandbox/docker/manager.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import { PostgresStore } from '../store/postgres/postgres-store.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { ThreadService } from '../threads/thread-service.ts';
import { HelperWorkspaceStore } from '../workspace/helper/helper-store.ts';
import { checkSandboxesSeeWorkspaces } from '../workspace/helper/reach-check.ts';
import {
  DirectoryWorkspaceStore,
  LoopWorkspaceStore,
  WorkspaceUnavailableError,
} from '../workspace/index.ts';
import type { WorkspaceStore } from '../workspace/workspace.ts';
import { addAcceptHandles } from './accept-handles.ts';
import { buildApp } from './app.ts';
import type { ServerConfig } from './config.ts';
import type { AppDeps } from './deps.ts';
import { KeyLimiter } from './limits/key-limiter.ts';
import { KeyRunPolicy } from './limits/run-policy.ts';
import { runEvery } from './run-every.ts';
import { ServerRunMonitor } from './run-monitor.ts';
import { FileStorage } from './services/file-storage.ts';
import { WorkspaceExports } from './services/zip-export.ts';

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
 * Builds the whole service on a data directory: the store (SQLite, or PostgreSQL with
 * ANALYST_DATABASE_URL), uploaded files, workspaces, Docker sandboxes, per-key limits and
 * the HTTP app. Runs a crashed server left unfinished are marked `interrupted`, and their
 * containers are reaped, before anything is served.
 *
 * On PostgreSQL the service may be one of several replicas sharing the database and the
 * data directory (docs/scale-out.md): its runs hold leases, it follows and cancels the
 * others' runs through the store, marks the runs of replicas that died as interrupted and
 * reaps their containers, and unmounts at its stop only the workspaces no other live replica holds.
 *
 * Workspaces are loop-mounted filesystems (safe while a cell changes them). A host that
 * cannot have those (not root, no loop devices) still serves, but runs no session cells —
 * each says why — and keeps workspaces as plain directories that only the server writes.
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
  let app: FastifyInstance | undefined;
  const onError = (error: unknown) => app?.log.warn({ err: error }, 'background work failed');
  const store = await openStore(config, onError);
  const shared = store.notices !== undefined;
  // Only runs with no live lease: on a shared database, other replicas' runs go on.
  const interrupted = await store.markInterruptedRuns();
  const files = new FileStorage(join(config.dataDir, 'files'));
  await files.init();
  const warnings: string[] = [];
  // Runs mark it; warm containers and spare workspaces are made when no run goes on (issue 32).
  const quiet = new QuietTime();
  const { workspaces, sessionsUnavailable } = await openWorkspaces(config, warnings, shared, onError, quiet);
  const sandbox: SandboxManager =
    config.sandbox === 'off'
      ? new DisabledSandbox(
          `code execution is turned off on this server (ANALYST_SANDBOX=off)${config.sandboxOffReason ? `: ${config.sandboxOffReason}` : ''}`,
        )
      : await createDockerSandbox({
          pool: config.pool,
          sessionIdleMs: config.sessions.idleMs,
          idleTtlMs: config.sessions.statefulIdleMs,
          maxSessions: config.sessions.max,
          workspaces,
          runtimeDir: join(config.dataDir, 'run'),
          sessionsUnavailable,
          onError,
          quiet,
          ...options.sandbox,
        });
  if (config.workspaceHelper && config.sandbox === 'on') {
    try {
      await checkContainerSetUp(config, workspaces, sandbox);
    } catch (error) {
      await sandbox.close();
      await workspaces.close();
      await store.close();
      throw error;
    }
  }
  const registry = options.registry ?? loadModelRegistry({ env: process.env });
  const reports = new ReportService(store, { imageBytes: config.reportImageBytes });
  const limits = new KeyLimiter(config.limits, { store, sandbox });
  const threads = new ThreadService({
    store,
    sandbox,
    workspaces,
    files,
    sessions: config.sandbox === 'on' && !sessionsUnavailable,
    limits,
  });
  const monitor = new ServerRunMonitor(sandbox);
  const runs = new RunService({
    store,
    sandbox,
    threads,
    models: registry,
    disallowedTools: config.disallowedTools,
    quiet,
    // The reports first: the usage recorded after a run counts them.
    afterRun: [reports, threads],
    monitor,
    policy: new KeyRunPolicy(limits, sandbox),
    replicas: shared ? { replica: replicaId(), leaseMs: config.runLeaseMs } : undefined,
  });
  // A thread deleted through another replica: this one's sandbox for it goes too.
  store.notices?.onThreadDeleted((threadId) => void sandbox.closeSession(threadId).catch(onError));
  const deps: AppDeps = {
    config,
    store,
    sandbox,
    workspaces,
    registry,
    files,
    threads,
    runs,
    reports,
    exports: new WorkspaceExports(),
    limits,
    connections: new ConnectionRegistry(config.connections),
  };
  app = await buildApp(deps, { logger: options.logger });
  monitor.useLog(app.log);
  for (const warning of warnings) app.log.warn(warning);
  if (interrupted.length)
    app.log.warn({ runs: interrupted }, 'marked runs left unfinished by a previous server as interrupted');

  let closing: Promise<void> | undefined;
  let closeAcceptHandles = () => {};
  const service: Service = {
    app,
    deps,
    url: '',
    async listen() {
      const address = await app.listen({ host: config.host, port: config.port });
      closeAcceptHandles = await addAcceptHandles(app.server, {
        onError: (error) => app.log.warn({ err: error }, 'accept handles'),
      });
      service.url = address.replace('[::1]', '127.0.0.1');
      return service.url;
    },
    close() {
      // Every step runs whichever fails before it (a database gone away must not leave
      // sandboxes, slot binds or mounts behind); the first failure is thrown at the end.
      closing ??= runEvery([
        async () => closeAcceptHandles(),
        () => runs.shutdown(),
        () => app.close(),
        () => deps.exports.close(),
        () => sandbox.close(),
        () => workspaces.close(),
        () => store.close(),
        () => deps.connections.close(),
      ]);
      return closing;
    },
  };
  return service;
}

/**
 * In a container (the workspace helper's set-up) sandboxes are siblings the engine mounts by
 * host paths: a cell must see what the server wrote, or the server says how to fix it.
 */
async function checkContainerSetUp(
  config: ServerConfig,
  workspaces: WorkspaceStore,
  sandbox: SandboxManager,
): Promise<void> {
  const session = `reach-check-${process.pid}`;
  await checkSandboxesSeeWorkspaces(workspaces, config.dataDir, async (workspace, name) => {
    const result = await sandbox.runCell(
      { id: session, workspace },
      { code: `print(open(${JSON.stringify(name)}).read())`, timeoutMs: 30_000 },
    );
    await sandbox.closeSession(session);
    if (result.status === 'unavailable') {
      throw new ConfigurationError(
        `no sandbox can start: ${result.message}. With compose-python.yaml, PYTHON_DOCKER_SOCKET must be the engine's socket on the host and PYTHON_DOCKER_GID its group (stat -c %g /var/run/docker.sock)`,
      );
    }
    return { ok: result.status === 'ok', output: result.output || result.message || '' };
  });
}

async function openStore(config: ServerConfig, onError: (error: unknown) => void): Promise<Store> {
  if (config.databaseUrl) return PostgresStore.open({ url: config.databaseUrl, onError });
  return new SqliteStore(join(config.dataDir, 'analyst.db'));
}

/** Unique among replicas and over restarts: a restarted replica owns none of its predecessor's runs. */
function replicaId(): string {
  return `${hostname()}-${process.pid}-${randomHex(4)}`;
}

async function openWorkspaces(
  config: ServerConfig,
  warnings: string[],
  shared: boolean,
  onError: (error: unknown) => void,
  quiet: QuietTime,
): Promise<{ workspaces: WorkspaceStore; sessionsUnavailable?: string }> {
  const root = join(config.dataDir, 'workspaces');
  if (config.sandbox === 'off') return { workspaces: new DirectoryWorkspaceStore(root) };
  if (config.workspaceHelper) {
    // Not root (the Compose set-up): the root helper makes the filesystems.
    return { workspaces: await HelperWorkspaceStore.connect({ socketPath: config.workspaceHelper, root }) };
  }
  try {
    const workspaces = await LoopWorkspaceStore.create({
      root,
      quotaBytes: config.workspaceQuota.bytes,
      quotaFiles: config.workspaceQuota.files,
      shared,
      spares: config.workspaceSpares,
      idleUnmountMs: config.workspaceIdleUnmountMs,
      quiet,
      onError,
    });
    return { workspaces };
  } catch (error) {
    if (!(error instanceof WorkspaceUnavailableError)) throw error;
    const reason =
      `thread cells cannot run on this server: ${error.message}. Workspaces must be filesystems of ` +
      'their own so that a cell cannot turn them against the host; run the server as root on Linux, ' +
      'or set ANALYST_SANDBOX=off to serve without execution. One-shot cells (POST /v1/exec) still run';
    warnings.push(reason);
    await mkdir(root, { recursive: true, mode: 0o700 });
    return { workspaces: new DirectoryWorkspaceStore(root), sessionsUnavailable: reason };
  }
}
