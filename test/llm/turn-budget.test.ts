import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { TurnBudget } from '../../src/llm/turn-budget.ts';

describe('TurnBudget: a share of each event-loop turn', () => {
  test('callers go on until the turn’s budget is spent, then wait for a later turn', async () => {
    let now = 0;
    const budget = new TurnBudget(4, () => now);
    assert.equal(budget.wait(), undefined, 'the first call opens the window');
    now = 3;
    assert.equal(budget.wait(), undefined, 'within the budget');
    now = 4;
    const first = budget.wait();
    const second = budget.wait();
    assert.ok(first && second, 'spent: both wait');
    const order: string[] = [];
    setImmediate(() => order.push('end of this turn'));
    await Promise.all([first, second]);
    order.push('waiters resumed');
    assert.deepEqual(order, ['end of this turn', 'waiters resumed']);
    assert.equal(budget.wait(), undefined, 'a new window is open when they resume');
  });

  test('waiters resume only after a poll phase, so I/O that was waiting gets its turn first', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
      const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
      const serverSide = await accepted;
      await new Promise((resolve) => client.once('connect', resolve));
      const order: string[] = [];
      const read = new Promise<void>((resolve) =>
        client.once('data', () => {
          order.push('data read');
          resolve();
        }),
      );
      let now = 0;
      const budget = new TurnBudget(1, () => now);
      // In one stretch: bytes reach the client's socket, and the budget is spent.
      serverSide.write('x');
      const until = performance.now() + 30;
      while (performance.now() < until) {}
      budget.wait();
      now = 5;
      const waiting = budget.wait();
      assert.ok(waiting);
      await Promise.all([waiting.then(() => order.push('waiter resumed')), read]);
      assert.deepEqual(order, ['data read', 'waiter resumed']);
      client.destroy();
    } finally {
      server.close();
    }
  });

  test('with time left in every turn nobody waits', () => {
    const budget = new TurnBudget(4, () => 0);
    for (let i = 0; i < 1000; i++) assert.equal(budget.wait(), undefined);
  });
});
