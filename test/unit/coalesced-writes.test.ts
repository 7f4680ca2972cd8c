import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CoalescedWrites } from '../../src/store/sqlite/coalesced-writes.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

describe('CoalescedWrites', () => {
  /** A stand-in database: a transaction is a log entry; nested ones are savepoints that roll back on a throw. */
  function loggingDb() {
    const log: string[] = [];
    let depth = 0;
    return {
      log,
      transaction:
        <A extends unknown[], R>(fn: (...args: A) => R) =>
        (...args: A): R => {
          depth += 1;
          log.push(depth === 1 ? 'begin' : 'savepoint');
          try {
            const value = fn(...args);
            log.push(depth === 1 ? 'commit' : 'release');
            return value;
          } catch (error) {
            log.push(depth === 1 ? 'rollback' : 'rollback to savepoint');
            throw error;
          } finally {
            depth -= 1;
          }
        },
    };
  }

  test('the writes of one turn run in one transaction, in order, each resolving with its result after the commit', async () => {
    const db = loggingDb();
    const writes = new CoalescedWrites(db);
    const ran: number[] = [];
    const first = [1, 2, 3].map((n) => writes.write(() => ran.push(n) && n * 10));
    assert.deepEqual(ran, [], 'nothing runs in the turn it was asked for');
    assert.deepEqual(await Promise.all(first), [10, 20, 30]);
    assert.deepEqual(await writes.write(() => 'four'), 'four');
    assert.deepEqual(ran, [1, 2, 3]);
    assert.deepEqual(db.log, [
      'begin',
      ...['savepoint', 'release', 'savepoint', 'release', 'savepoint', 'release'],
      'commit',
      'begin', // a write alone needs no savepoint
      'commit',
    ]);
  });

  test('a write that throws is rolled back alone and fails only its caller', async () => {
    const db = loggingDb();
    const writes = new CoalescedWrites(db);
    const results = await Promise.allSettled([
      writes.write(() => 1),
      writes.write(() => {
        throw new Error('bad write 2');
      }),
      writes.write(() => 3),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason))),
      [1, 'Error: bad write 2', 3],
    );
    assert.deepEqual(
      db.log.filter((entry) => entry === 'begin' || entry === 'commit'),
      ['begin', 'commit'],
    );
    assert.ok(db.log.includes('rollback to savepoint'));
  });

  test('when the commit itself fails, each write is tried again in a transaction of its own', async () => {
    let depth = 0;
    let failedCommits = 0;
    const ran: string[] = [];
    const db = {
      transaction:
        <A extends unknown[], R>(fn: (...args: A) => R) =>
        (...args: A): R => {
          depth += 1;
          try {
            const value = fn(...args);
            // The first outermost transaction (the shared one) fails at its commit.
            if (depth === 1 && failedCommits === 0) {
              failedCommits += 1;
              throw new Error('disk I/O error');
            }
            return value;
          } finally {
            depth -= 1;
          }
        },
    };
    const writes = new CoalescedWrites(db);
    const results = await Promise.all([
      writes.write(() => ran.push('a') && 'a'),
      writes.write(() => ran.push('b') && 'b'),
    ]);
    assert.deepEqual(results, ['a', 'b']);
    assert.equal(failedCommits, 1);
    assert.deepEqual(ran, ['a', 'b', 'a', 'b'], 'run together, then each again on its own');
  });

  test('flush runs what is queued at once (before a close)', () => {
    const db = loggingDb();
    const writes = new CoalescedWrites(db);
    void writes.write(() => 1);
    writes.flush();
    assert.equal(db.log.filter((entry) => entry === 'commit').length, 1);
    writes.flush();
    assert.equal(db.log.filter((entry) => entry === 'commit').length, 1, 'an empty queue commits nothing');
  });
});

describe('SqliteStore event writes, many runs at once', () => {
  test('runs appending in the same turn are all stored; a duplicate fails alone; close keeps what was queued', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'analyst-coalesced-'));
    try {
      const path = join(dir, 'analyst.db');
      const store = new SqliteStore(path);
      for (const n of [1, 2, 3]) {
        await store.createThread({
          id: `thread_${n}`,
          owner: 'o',
          workspace: `w${n}`,
          title: null,
          metadata: {},
        });
        await store.createRun({ id: `run_${n}`, thread_id: `thread_${n}`, model: 'm', protocol: 'p' }, {});
      }
      const event = (seq: number, text: string) => ({
        seq,
        event: { type: 'text-delta' as const, round: 1, text },
      });
      await store.appendEvents('run_2', [event(0, 'earlier')]);
      const results = await Promise.allSettled([
        store.appendEvents('run_1', [event(0, 'a'), event(1, 'b')]),
        store.appendEvents('run_2', [event(0, 'the same seq again')]),
        store.appendEvents('run_3', [event(0, 'c')]),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(
        (await store.runEvents('run_1')).map((e) => e.seq),
        [0, 1],
      );
      assert.deepEqual(
        (await store.runEvents('run_2')).map((e) => (e.event as { text: string }).text),
        ['earlier'],
      );
      void store.appendEvents('run_3', [event(1, 'queued at close')]);
      await store.close();
      const reopened = new SqliteStore(path);
      assert.deepEqual(
        (await reopened.runEvents('run_3')).map((e) => (e.event as { text: string }).text),
        ['c', 'queued at close'],
      );
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('writes asked for in one turn see each other in order: two runs on a thread, two changes of it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'analyst-coalesced-'));
    try {
      const store = new SqliteStore(join(dir, 'analyst.db'));
      const [thread] = await Promise.all([
        store.createThread({ id: 'thread_1', owner: 'o', workspace: 'w', title: null, metadata: {} }),
      ]);
      assert.equal(thread.id, 'thread_1');
      // Same turn: the second run on the thread is refused (the first is running by then),
      // and the title of one change and the metadata of the other both stay.
      const [first, second, renamed, tagged] = await Promise.allSettled([
        store.createRun({ id: 'run_a', thread_id: 'thread_1', model: 'm', protocol: 'p' }, {}),
        store.createRun({ id: 'run_b', thread_id: 'thread_1', model: 'm', protocol: 'p' }, {}),
        store.updateThread('o', 'thread_1', { title: 'Renamed' }),
        store.updateThread('o', 'thread_1', { metadata: { tag: 'x' } }),
      ]);
      assert.equal(first.status, 'fulfilled');
      assert.equal(second.status, 'rejected');
      assert.match(String((second as PromiseRejectedResult).reason), /already running/);
      assert.equal(renamed.status, 'fulfilled');
      assert.equal(tagged.status, 'fulfilled');
      const stored = await store.getThread('o', 'thread_1');
      assert.equal(stored?.title, 'Renamed');
      assert.deepEqual(stored?.metadata, { tag: 'x' });
      assert.deepEqual(
        (await store.listRuns('thread_1')).map((r) => r.id),
        ['run_a'],
      );
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
