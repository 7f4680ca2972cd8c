import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { storeContract } from './contract.ts';

storeContract(
  'PostgreSQL',
  async () => {
    const database = await freshDatabase();
    const store = await PostgresStore.open({ url: database.url });
    return {
      store,
      peer: () => PostgresStore.open({ url: database.url }),
      close: async () => {
        await store.close();
        await database.drop();
      },
    };
  },
  {
    skip: TEST_DATABASE_URL ? false : 'no PostgreSQL server (ANALYST_TEST_DATABASE_URL); npm test starts one',
  },
);
