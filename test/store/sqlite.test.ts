import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { storeContract } from './contract.ts';

storeContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'analyst-store-'));
  const store = new SqliteStore(join(dir, 'analyst.db'));
  return {
    store,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
