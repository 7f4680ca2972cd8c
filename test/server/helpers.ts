import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ModelEntry, ProtocolName } from '../../src/llm/model.ts';
import { ModelRegistry } from '../../src/llm/registry.ts';
import type { ScriptInput } from '../../src/llm/scripted/script.ts';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import { createService, type Service } from '../../src/server/service.ts';
import { LoopWorkspaceStore } from '../../src/workspace/local/loop-workspace-store.ts';
import { unmountUnder } from '../helpers/mounts.ts';
import { freshDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { eventually, TEST_IMAGE } from '../helpers/sandbox.ts';
import { postgresAccess, type StoreKind, sqliteAccess, type TestDatabaseAccess } from '../helpers/stores.ts';

export interface TestServer {
  url: string;
  service: Service;
  scripted: ScriptedModel | undefined;
  dataDir: string;
  /** Which store it runs on, and read access to it. */
  store: StoreKind;
  database: TestDatabaseAccess;
  /** An official OpenAI client pointed at the server (optionally with an API key). */
  client(apiKey?: string): OpenAI;
  /** fetch against the server, with an optional key. */
  fetch(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A real server on 127.0.0.1 (random port) with its own data directory, the real sandbox,
 * its own store — SQLite in the data directory (the default) or a fresh PostgreSQL
 * database on the test command's server — and, when a script is given, a scripted
 * vLLM-like model as its default model `scripted`.
 */
export async function startTestServer(
  options: {
    script?: ScriptInput;
    protocol?: ProtocolName;
    /** Settings of the scripted model's entry (aliases, sampling, grounding…). */
    model?: Partial<ModelEntry>;
    env?: Record<string, string>;
    dataDir?: string;
    store?: StoreKind;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'analyst-server-')));
  const store = options.store ?? 'sqlite';
  const database: TestDatabase | undefined = store === 'postgres' ? await freshDatabase() : undefined;
  const scripted = options.script ? await startScriptedModel({ script: options.script }) : undefined;
  const models: ModelEntry[] = scripted
    ? [
        {
          id: 'scripted',
          protocol: options.protocol ?? 'deepanalyze',
          baseUrl: scripted.url,
          upstreamModel: 'scripted',
          ...options.model,
        },
      ]
    : [];
  const config = loadServerConfig(
    { host: '127.0.0.1', port: 0, dataDir },
    {
      ANALYST_POOL_SESSION: '0',
      ANALYST_POOL_EPHEMERAL: '0',
      PYTHON_SANDBOX_IMAGE: TEST_IMAGE,
      ...(database ? { ANALYST_DATABASE_URL: database.url } : {}),
      ...options.env,
    },
  );
  const service = await createService(config, {
    registry: new ModelRegistry({ models }),
    sandbox: { image: TEST_IMAGE, reapIntervalMs: 0 },
    logger: false,
  });
  const url = await service.listen();
  // The spare workspaces are made in the background: a test that compares the data dir
  // before and after a request must not see them appear in between.
  const { workspaces } = service.deps;
  if (workspaces instanceof LoopWorkspaceStore)
    await eventually(async () => workspaces.sparesInTheMaking === 0, 'the spare workspaces', 30_000);
  return {
    url,
    service,
    scripted,
    dataDir,
    store,
    database: database ? postgresAccess(database.url) : sqliteAccess(dataDir),
    client: (apiKey = 'unused-in-open-mode') => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 }),
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('authorization', `Bearer ${init.key}`);
      return fetch(`${url}${path}`, { ...init, headers });
    },
    close: async () => {
      await service.close();
      await scripted?.close();
      await database?.drop();
      if (database && !options.dataDir) await unmountUnder(dataDir); // in case a test left a replica holding them
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** A new, empty thread on the test server (open mode); its id. */
export async function newThread(server: TestServer): Promise<string> {
  const response = await server.fetch('/v1/threads', {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  return (await json(response)).id as string;
}

/** Asserts OpenAI's error shape and returns the error. */
export async function expectError(
  response: Response,
  status: number,
): Promise<{ message: string; type: string; param: string | null; code: string | null }> {
  const body = (await response.json()) as {
    error?: { message: string; type: string; param: string | null; code: string | null };
  };
  if (response.status !== status)
    throw new Error(`expected HTTP ${status}, got ${response.status}: ${JSON.stringify(body)}`);
  if (
    !body.error ||
    typeof body.error.message !== 'string' ||
    !('param' in body.error) ||
    !('code' in body.error) ||
    typeof body.error.type !== 'string'
  ) {
    throw new Error(`not OpenAI's error shape: ${JSON.stringify(body)}`);
  }
  return body.error;
}
