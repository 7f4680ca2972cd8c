import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemovalQueue } from '../../src/sandbox/docker/removal-queue.ts';
import type { SandboxContainer } from '../../src/sandbox/docker/sandbox-container.ts';

/** Removals that end when the test says so. */
function harness(atOnce: number, maxWaiting?: number, delayMs?: number) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const queue = new RemovalQueue({
    atOnce,
    maxWaiting,
    delayMs,
    remove: (container) =>
      new Promise<void>((resolve) => {
        started.push(container.name);
        finish.set(container.name, resolve);
      }),
  });
  const container = (name: string) => ({ name }) as unknown as SandboxContainer;
  const tick = () => new Promise((r) => setImmediate(r));
  return { queue, started, finish, container, tick };
}

describe('removing idle containers a few at a time', () => {
  test('at most `atOnce` removals run; the next starts when one ends, in order', async () => {
    const h = harness(2);
    const all = ['a', 'b', 'c', 'd', 'e'].map(h.container);
    for (const c of all) h.queue.add(c);
    h.queue.add(all[0]!); // twice is once
    assert.deepEqual(h.started, ['a', 'b']);
    assert.deepEqual(h.queue.names().sort(), ['a', 'b', 'c', 'd', 'e'], 'the reaper leaves all five alone');
    h.finish.get('b')!();
    await h.tick();
    assert.deepEqual(h.started, ['a', 'b', 'c']);
    assert.equal(h.queue.length, 4);
    assert.equal(h.queue.waitingCount, 2, 'd and e have not started');
    h.finish.get('a')!();
    h.finish.get('c')!();
    await h.tick();
    assert.deepEqual(h.started, ['a', 'b', 'c', 'd', 'e']);
  });

  test('with delayMs, an idle removal starts only that long after it was queued; now() and flush do not wait', async () => {
    const h = harness(1, undefined, 80);
    const queuedAt = performance.now();
    h.queue.add(h.container('a'));
    h.queue.add(h.container('b'));
    await h.tick();
    assert.deepEqual(h.started, [], 'not beside the cell that displaced it');
    const urgent = h.container('c');
    h.queue.add(urgent);
    void h.queue.now(urgent);
    assert.deepEqual(h.started, ['c'], 'a container that may run code goes at once');
    while (h.started.length < 2) await new Promise((r) => setTimeout(r, 5));
    assert.ok(performance.now() - queuedAt >= 80, 'a waited out its delay');
    assert.deepEqual(h.started, ['c', 'a'], 'then it takes its turn, b still waits for it');
    let flushed = false;
    const flushing = h.queue.flush().then(() => {
      flushed = true;
    });
    await h.tick();
    assert.deepEqual(h.started, ['c', 'a', 'b'], 'closing removes the rest at once');
    for (const name of ['a', 'b', 'c']) h.finish.get(name)!();
    await flushing;
    assert.ok(flushed);
  });

  test('flush (closing) removes everything still waiting at once and resolves when all are gone', async () => {
    const h = harness(1);
    for (const name of ['a', 'b', 'c']) h.queue.add(h.container(name));
    let flushed = false;
    const flushing = h.queue.flush().then(() => {
      flushed = true;
    });
    await h.tick();
    assert.deepEqual(h.started, ['a', 'b', 'c']);
    h.finish.get('a')!();
    h.finish.get('b')!();
    await h.tick();
    assert.equal(flushed, false, 'c is still being removed');
    h.finish.get('c')!();
    await flushing;
    assert.equal(h.queue.length, 0);
  });

  test('expedite removes the containers it picks out of turn (their workspace is being deleted)', async () => {
    const h = harness(1);
    for (const name of ['a', 'b', 'c', 'd']) h.queue.add(h.container(name));
    let done = false;
    const expedited = h.queue
      .expedite((c) => c.name === 'a' || c.name === 'c')
      .then(() => {
        done = true;
      });
    assert.deepEqual(h.started, ['a', 'c'], 'c starts at once; b and d wait their turn');
    h.finish.get('a')!();
    await h.tick();
    assert.equal(done, false, 'c is not gone yet');
    assert.deepEqual(h.started, ['a', 'c'], 'c still holds the one turn');
    h.finish.get('c')!();
    await expedited;
    await h.tick();
    assert.deepEqual(h.started, ['a', 'c', 'b']);
  });

  test('past maxWaiting, removals start regardless of their turn (waiting containers hold memory)', () => {
    const h = harness(1, 2);
    for (const name of ['a', 'b', 'c', 'd', 'e']) h.queue.add(h.container(name));
    assert.deepEqual(h.started, ['a', 'b', 'c'], 'd and e wait: two at most');
    assert.equal(h.queue.waitingCount, 2);
  });

  test('now() removes at once without taking a turn, and takes a waiting container out of the queue', async () => {
    const h = harness(1);
    const c = h.container('c');
    for (const container of [h.container('a'), h.container('b'), c]) h.queue.add(container);
    const gone = h.queue.now(c);
    assert.deepEqual(h.started, ['a', 'c'], 'c starts beside a, out of turn');
    assert.equal(h.queue.waitingCount, 1, 'only b waits');
    h.finish.get('c')!();
    await gone;
    await h.tick();
    assert.deepEqual(h.started, ['a', 'c'], 'b still waits for a');
    h.finish.get('a')!();
    await h.tick();
    assert.deepEqual(h.started, ['a', 'c', 'b']);
  });

  test('a failed removal frees its turn', async () => {
    const queue = new RemovalQueue({
      atOnce: 1,
      remove: async () => Promise.reject(new Error('engine gone')),
    });
    queue.add({ name: 'a' } as unknown as SandboxContainer);
    queue.add({ name: 'b' } as unknown as SandboxContainer);
    await queue.flush();
    assert.equal(queue.length, 0);
  });
});
