import type { ConnectionConfig } from '../../src/connections/config.ts';
import type { ConnectionKind } from '../../src/connections/connection.ts';
import { ConnectionRegistry } from '../../src/connections/registry.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { type TestConnectionDb, testConnectionDb } from './connection-databases.ts';
import { tempWorkspace, testSandbox } from './sandbox.ts';

/** A run's database and the parts an agent test needs beside it. */
export interface ShopFixture {
  db: TestConnectionDb;
  /** One connection, `shop`, on `db`, for the key `owner-a`. */
  registry: ConnectionRegistry;
  sandbox: DockerSandboxManager;
  workspace: Awaited<ReturnType<typeof tempWorkspace>>;
}

/** A throwaway database of `kind` with the sales table, its `shop` connection, a sandbox and a workspace. */
export async function openShopFixture(kind: ConnectionKind): Promise<ShopFixture> {
  const db = await testConnectionDb(kind);
  const config: ConnectionConfig = {
    id: 'shop',
    kind,
    title: 'Shop',
    keys: ['owner-a'],
    maxRows: 1000,
    timeoutMs: 10_000,
    schemas: [],
    url: db.url,
  };
  return {
    db,
    registry: new ConnectionRegistry([config]),
    sandbox: await testSandbox(),
    workspace: await tempWorkspace(),
  };
}

/** Removes what `openShopFixture` made (whatever part of it was made). */
export async function closeShopFixture(fixture: Partial<ShopFixture>): Promise<void> {
  await fixture.sandbox?.close();
  await fixture.workspace?.cleanup();
  await fixture.registry?.close();
  await fixture.db?.drop();
}
