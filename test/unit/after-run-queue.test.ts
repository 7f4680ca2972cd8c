import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AfterRunQueue } from '../../src/runs/after-run-queue.ts';

/** A task that runs until `finish` is called, recording when it starts. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    work: async () => {
      log.push(`start ${name}`);
      await done;
      log.push(`end ${name}`);
    },
    finish: () => finish(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('after-run queue', () => {
  test('runs a few at once, the rest in order as others end; settled waits for all', async () => {
    const log: string[] = [];
    const queue = new AfterRunQueue(2);
    const gates = ['a', 'b', 'c', 'd'].map((name) => gate(log, name));
    for (const [i, g] of gates.entries()) queue.add(`thread-${i}`, g.work);
    await turn();
    assert.deepEqual(log, ['start a', 'start b']);
    gates[1]!.finish();
    await turn();
    assert.deepEqual(log, ['start a', 'start b', 'end b', 'start c']);
    const settled = queue.settled();
    for (const g of gates) g.finish();
    await settled;
    assert.equal(queue.size, 0);
    assert.deepEqual(
      log.filter((l) => l.startsWith('start')),
      ['start a', 'start b', 'start c', 'start d'],
    );
  });

  test('hurry starts a waiting task now, beyond the limit, and resolves when it is done', async () => {
    const log: string[] = [];
    const queue = new AfterRunQueue(1);
    const first = gate(log, 'first');
    queue.add('busy', first.work);
    queue.add('mine', async () => {
      log.push('mine');
    });
    await turn();
    assert.deepEqual(log, ['start first']);
    await queue.hurry('mine');
    assert.deepEqual(log, ['start first', 'mine']);
    assert.equal(queue.hurry('mine'), undefined, 'nothing left for the thread');
    first.finish();
    await queue.settled();
  });

  test("one thread's work runs in order, once each, whether added while waiting or while running", async () => {
    const log: string[] = [];
    const queue = new AfterRunQueue(1);
    const blocker = gate(log, 'other');
    const first = gate(log, 't1');
    queue.add('other', blocker.work);
    queue.add('t', first.work);
    queue.add('t', async () => {
      log.push('t2'); // added while t1 waits: runs after it, in the same turn of the queue
    });
    blocker.finish();
    await turn();
    assert.deepEqual(log, ['start other', 'end other', 'start t1']);
    queue.add('t', async () => {
      log.push('t3'); // added while t1 runs: waits for t1 and t2
    });
    await turn();
    assert.deepEqual(log, ['start other', 'end other', 'start t1']);
    first.finish();
    await queue.settled();
    assert.deepEqual(log, ['start other', 'end other', 'start t1', 'end t1', 't2', 't3']);
  });

  test('a task that fails is reported and does not stop the queue', async () => {
    const errors: unknown[] = [];
    const queue = new AfterRunQueue(1, (error) => errors.push(error));
    const log: string[] = [];
    queue.add('a', async () => {
      throw new Error('report failed');
    });
    queue.add('b', async () => {
      log.push('b');
    });
    await queue.settled();
    assert.deepEqual(log, ['b']);
    assert.match(String(errors[0]), /report failed/);
  });
});
