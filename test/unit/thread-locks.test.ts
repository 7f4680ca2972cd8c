import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConflictError } from '../../src/errors/index.ts';
import { ThreadLocks } from '../../src/threads/thread-locks.ts';

/** The one lock of a thread's runs, writes and deletes (src/threads/thread-locks.ts). */
describe('ThreadLocks', () => {
  test('one run holds a thread: a second claim is refused until the first slot ends', () => {
    const locks = new ThreadLocks();
    const first = locks.claimRun('t1');
    assert.throws(
      () => locks.claimRun('t1'),
      (e) => e instanceof ConflictError && /already running/.test(e.message),
    );
    assert.equal(locks.runOf('t1'), first);
    assert.equal(locks.runs, 1);
    const other = locks.claimRun('t2');
    assert.equal(locks.runs, 2);
    assert.deepEqual(new Set(locks.runSlots()), new Set([first, other]));
    first.end();
    assert.equal(locks.runOf('t1'), undefined);
    assert.equal(locks.runs, 1);
    const again = locks.claimRun('t1');
    assert.notEqual(again.runId, first.runId);
  });

  test('release frees a slot whose run never started, and leaves a started one to its run', async () => {
    const locks = new ThreadLocks();
    let ended = 0;
    const failed = locks.claimRun('t1', () => ended++);
    failed.release();
    assert.equal(ended, 1);
    await failed.done;
    const started = locks.claimRun('t1', () => ended++);
    started.started = true;
    started.release();
    assert.equal(locks.runOf('t1'), started, 'a started run keeps its slot');
    started.end();
    started.end();
    assert.equal(ended, 2, 'onEnd is called once per slot');
  });

  test('a run holds the thread against a sandbox restart, not against writes', () => {
    const locks = new ThreadLocks();
    const slot = locks.claimRun('t1');
    assert.throws(
      () => locks.assertNoRun('t1', 'restarting its sandbox'),
      /cancel it before restarting its sandbox/,
    );
    const write = locks.beginWrite('t1');
    assert.equal(write.signal.aborted, false);
    write.end();
    slot.end();
    locks.assertNoRun('t1', 'restarting its sandbox');
  });

  test('a thread being deleted refuses runs, writes and a second delete, until the delete ends', () => {
    const locks = new ThreadLocks();
    const deletion = locks.beginDelete('t1');
    const beingDeleted = (e: unknown) => e instanceof ConflictError && /is being deleted/.test(e.message);
    assert.throws(() => locks.claimRun('t1'), beingDeleted);
    assert.throws(() => locks.beginWrite('t1'), beingDeleted);
    assert.throws(() => locks.beginDelete('t1'), beingDeleted);
    assert.throws(() => locks.assertWritable('t1'), beingDeleted);
    locks.beginWrite('t2').end();
    deletion.end();
    locks.assertWritable('t1');
    locks.claimRun('t1').end();
  });

  test('a delete aborts the writes under way and waits for each to end', async () => {
    const locks = new ThreadLocks();
    const upload = locks.beginWrite('t1');
    const exec = locks.beginWrite('t1');
    const elsewhere = locks.beginWrite('t2');
    const deletion = locks.beginDelete('t1');
    deletion.abortWrites();
    assert.deepEqual(
      [upload.signal.aborted, exec.signal.aborted, elsewhere.signal.aborted],
      [true, true, false],
    );
    let done = false;
    const waiting = deletion.writesDone().then(() => {
      done = true;
    });
    upload.end();
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'one write still goes on');
    exec.end();
    exec.end();
    await waiting;
    assert.equal(done, true);
    deletion.end();
    elsewhere.end();
  });

  test('writesDone resolves at once when nothing is written', async () => {
    const locks = new ThreadLocks();
    const deletion = locks.beginDelete('t1');
    await deletion.writesDone();
    deletion.end();
  });
});
