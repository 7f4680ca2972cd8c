import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { QuietTime } from '../../src/background/quiet-time.ts';

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` has settled by now (after a short wait). */
async function settledYet(promise: Promise<unknown>, waitMs = 30): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await tick(waitMs);
  return done;
}

describe('quiet time: background work waits for the runs users wait for', () => {
  // Its timers do not hold a process open (a refill must not keep a CLI alive): the test does.
  let holder: NodeJS.Timeout;
  beforeEach(() => {
    holder = setInterval(() => {}, 1000);
  });
  afterEach(() => clearInterval(holder));

  test('with nothing going on it is quiet once the settle time has passed', async () => {
    const quiet = new QuietTime({ settleMs: 5, maxWaitMs: 60_000 });
    assert.equal(quiet.busy, false);
    await quiet.settled();
  });

  test('a run going on holds it back until the run ends', async () => {
    const quiet = new QuietTime({ settleMs: 5, maxWaitMs: 60_000 });
    const end = quiet.begin();
    assert.equal(quiet.busy, true);
    const waiting = quiet.settled();
    assert.equal(await settledYet(waiting, 60), false, 'not while the run goes on');
    end();
    assert.equal(quiet.busy, false);
    await waiting;
  });

  test('it waits for every run, and ending one twice counts once', async () => {
    const quiet = new QuietTime({ settleMs: 5, maxWaitMs: 60_000 });
    const first = quiet.begin();
    const second = quiet.begin();
    const waiting = quiet.settled();
    first();
    first();
    assert.equal(quiet.busy, true, 'the second run still goes on');
    assert.equal(await settledYet(waiting), false);
    second();
    await waiting;
  });

  test('a run that begins just after the call is waited for too (the settle time counts from the call)', async () => {
    const quiet = new QuietTime({ settleMs: 200, maxWaitMs: 60_000 });
    const waiting = quiet.settled();
    const end = quiet.begin(); // as a new thread's run is reserved just after its workspace is taken
    assert.equal(await settledYet(waiting, 250), false);
    end();
    await waiting;
  });

  test('a server never quiet still gets its background work done, after the longest wait', async () => {
    const quiet = new QuietTime({ settleMs: 5, maxWaitMs: 50 });
    const end = quiet.begin();
    await quiet.settled();
    assert.equal(quiet.busy, true);
    end();
  });
});
