import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runEvery } from '../../src/server/run-every.ts';

test('every step runs after one fails, in order, and the first failure is thrown', async () => {
  const ran: string[] = [];
  const gone = new Error('the database went away');
  await assert.rejects(
    runEvery([
      async () => ran.push('runs'),
      async () => {
        ran.push('store');
        throw gone;
      },
      async () => ran.push('sandbox'),
      async () => {
        ran.push('workspaces');
        throw new Error('later');
      },
      async () => ran.push('connections'),
    ]),
    (error) => error === gone,
  );
  assert.deepEqual(ran, ['runs', 'store', 'sandbox', 'workspaces', 'connections']);
});

test('with no failure it resolves', async () => {
  let count = 0;
  await runEvery([async () => count++, async () => count++]);
  assert.equal(count, 2);
});
