import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAbortError } from '../../src/errors/abort.ts';
import { FairPool } from '../../src/workers/fair-pool.ts';

/** A job that runs until `finish()` is called, recording when it started. */
function gate(): { promise: Promise<void>; finish: () => void } {
  let finish = () => {};
  const promise = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { promise, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test("one key's queue delays another key's job by at most its one running job", async () => {
  const pool = new FairPool(1);
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const job = (key: string, name: string) =>
    pool.run(key, undefined, async () => {
      started.push(name);
      const g = gate();
      gates.set(name, g.finish);
      await g.promise;
    });
  const all = [1, 2, 3, 4, 5].map((n) => job('a', `a${n}`));
  all.push(job('b', 'b1'));
  await tick();
  assert.deepEqual(started, ['a1']);
  gates.get('a1')?.();
  await tick();
  await tick();
  // a1 was running when b1 came: b1 is next, not after a2 (whose key waited first) or a5.
  assert.deepEqual(started, ['a1', 'b1']);
  for (const name of ['b1', 'a2', 'a3', 'a4', 'a5']) {
    gates.get(name)?.();
    await tick();
    await tick();
  }
  await Promise.all(all);
  assert.equal(pool.counts().mostAtOnce, 1);
});

test('a job whose signal aborts leaves the queue and never runs', async () => {
  const pool = new FairPool(1);
  const first = gate();
  const running = pool.run('a', undefined, () => first.promise);
  const controller = new AbortController();
  let ran = false;
  const waiting = pool.run('a', controller.signal, async () => {
    ran = true;
  });
  assert.equal(pool.counts().waiting, 1);
  controller.abort();
  await assert.rejects(waiting, (error) => isAbortError(error));
  assert.equal(pool.counts().waiting, 0);
  first.finish();
  await running;
  assert.equal(ran, false);
  // An already aborted signal never takes a slot either.
  await assert.rejects(
    pool.run('b', AbortSignal.abort(), async () => undefined),
    (error) => isAbortError(error),
  );
  assert.deepEqual(pool.counts(), { running: 0, waiting: 0, mostAtOnce: 1 });
});

test('a failed job frees its slot; never more than the size run at once', async () => {
  const pool = new FairPool(2);
  let now = 0;
  const jobs = Array.from({ length: 12 }, (_, n) =>
    pool.run(n % 3 === 0 ? 'a' : 'b', undefined, async () => {
      now++;
      assert.ok(now <= 2, `${now} jobs at once`);
      await tick();
      now--;
      if (n % 4 === 0) throw new Error(`job ${n} failed`);
      return n;
    }),
  );
  const results = await Promise.allSettled(jobs);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 3);
  assert.deepEqual(pool.counts(), { running: 0, waiting: 0, mostAtOnce: 2 });
  assert.throws(() => new FairPool(0), RangeError);
});

test('two keys with long queues take turns, and the pool forgets its keys once idle', async () => {
  const pool = new FairPool(1);
  const started: string[] = [];
  const job = (key: string, name: string) =>
    pool.run(key, undefined, async () => {
      started.push(name);
      await tick();
    });
  const all = [
    ...['a1', 'a2', 'a3'].map((name) => job('a', name)),
    ...['b1', 'b2', 'b3'].map((name) => job('b', name)),
  ];
  await Promise.all(all);
  assert.deepEqual(started, ['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  // Idle again: whoever asks first is served first, as on a fresh pool.
  started.length = 0;
  await Promise.all([job('b', 'b4'), job('a', 'a4')]);
  assert.deepEqual(started, ['b4', 'a4']);
});
