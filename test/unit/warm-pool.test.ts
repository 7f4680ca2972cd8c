import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SandboxContainer } from '../../src/sandbox/docker/sandbox-container.ts';
import { WarmPool } from '../../src/sandbox/docker/warm-pool.ts';

/** A pool over fake containers and an injected clock; `retired` collects what it gave back. */
function pool(size: number) {
  let clock = 0;
  let made = 0;
  const retired: string[] = [];
  const warm = new WarmPool({
    size,
    create: async () =>
      ({ name: `c${++made}`, alive: true, createdAt: clock }) as unknown as SandboxContainer,
    maxAgeMs: 3_600_000,
    now: () => clock,
    onError: (error) => assert.fail(String(error)),
    retire: (container) => retired.push(container.name),
    refillDelayMs: 60_000, // longer than any test waits: only an empty pool refills at once
  });
  return {
    warm,
    retired,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the warm pool keeps up with demand', () => {
  test('an empty pool refills at once; one that still has a container waits its delay', async () => {
    const { warm } = pool(2);
    await warm.fill();
    assert.equal(warm.readyCount, 2);
    assert.ok(warm.take());
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(warm.readyCount, 1, 'one left: the refill waits (it would compete with the cells)');
    assert.ok(warm.take());
    await warm.fill();
    assert.equal(warm.readyCount, 2, 'empty: refilled at once');
    await warm.close();
  });

  test('a take that finds it empty makes it larger for a minute, up to twice its size', async () => {
    const { warm, retired, advance } = pool(2);
    await warm.fill();
    warm.take();
    warm.take();
    assert.equal(warm.take(), undefined, 'the third take in a row finds it empty');
    assert.equal(warm.target, 3);
    for (let i = 0; i < 5; i++) warm.take();
    assert.equal(warm.target, 4, 'never more than twice its size');
    await warm.fill();
    assert.equal(warm.readyCount, 4);
    advance(30_000);
    warm.retireOld();
    assert.equal(warm.readyCount, 4, 'still within the minute');
    advance(31_000);
    warm.retireOld();
    assert.equal(warm.target, 2);
    assert.equal(warm.readyCount, 2, 'demand gone: the extra containers are given back');
    assert.equal(retired.length, 2);
    await warm.close();
  });
});

describe('the warm pool refills between runs (issue 32)', () => {
  /** A pool whose refills wait on a gate the test opens, as the server's QuietTime opens when runs end. */
  function gated(size: number) {
    let made = 0;
    let open!: () => void;
    let gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const quiet = {
      asked: 0,
      settled: () => {
        quiet.asked += 1;
        return gate;
      },
    };
    const warm = new WarmPool({
      size,
      create: async () => ({ name: `c${++made}`, alive: true, createdAt: 0 }) as unknown as SandboxContainer,
      maxAgeMs: 3_600_000,
      now: () => 0,
      onError: (error) => assert.fail(String(error)),
      retire: () => {},
      quiet,
    });
    return {
      warm,
      quiet,
      made: () => made,
      openGate: () => {
        open();
        gate = new Promise<void>((resolve) => {
          open = resolve;
        });
      },
    };
  }

  test('a taken container is replaced once it is quiet, not while the run that took it goes on', async () => {
    const { warm, quiet, made, openGate } = gated(2);
    await warm.fill();
    assert.equal(made(), 2, 'filling at start does not wait');
    assert.ok(warm.take(), 'a new thread takes a warm container');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(quiet.asked, 1, 'its replacement waits for quiet');
    assert.equal(made(), 2, 'no container starts beside the run');
    openGate();
    await warm.fill();
    assert.equal(warm.readyCount, 2, 'the next new thread finds the pool full again');
    assert.equal(made(), 3);
    await warm.close();
  });

  test('an empty pool refills at once, quiet or not (the next thread would wait for a start)', async () => {
    const { warm, made } = gated(1);
    await warm.fill();
    assert.ok(warm.take());
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(made(), 2, 'started without waiting for quiet');
    assert.equal(warm.readyCount, 1);
    await warm.close();
  });

  test('a refill waiting for quiet starts one at once when the pool runs empty meanwhile, the next when quiet', async () => {
    const { warm, made } = gated(2);
    await warm.fill();
    warm.take();
    warm.take();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(made(), 3, 'one started at once; the second waits for quiet');
    assert.equal(warm.readyCount, 1);
    await warm.fill();
    assert.equal(warm.readyCount, 2);
    await warm.close();
  });

  test('closing ends a refill that waits for quiet', async () => {
    const { warm, made } = gated(2);
    await warm.fill();
    warm.take();
    await warm.close();
    assert.equal(made(), 2);
    assert.equal(warm.readyCount, 0);
  });
});
