import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CoalescedWrites } from '../../src/store/sqlite/coalesced-writes.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

describe('CoalescedWrites', () => {
  test('what is added in one turn is committed together, in order, and each add resolves after', async () => {
    const commits: number[][] = [];
    const writes = new CoalescedWrites<number>((items) => commits.push([...items]));
    const first = [writes.add(1), writes.add(2), writes.add(3)];
    assert.deepEqual(commits, [], 'nothing is committed in the turn it was added');
    await Promise.all(first);
    await writes.add(4);
    assert.deepEqual(commits, [[1, 2, 3], [4]]);
  });

  test('a failing item fails only its own add; the others are committed on their own', async () => {
    const committed: number[] = [];
    const writes = new CoalescedWrites<number>((items) => {
      if (items.includes(2)) throw new Error('bad item 2');
      committed.push(...items);
    });
    const results = await Promise.allSettled([writes.add(1), writes.add(2), writes.add(3)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /bad item 2/);
    assert.deepEqual(committed, [1, 3]);
  });

  test('flush commits at once (before a close)', () => {
    const commits: number[][] = [];
    const writes = new CoalescedWrites<number>((items) => commits.push([...items]));
    void writes.add(1);
    writes.flush();
    assert.deepEqual(commits, [[1]]);
    writes.flush();
    assert.deepEqual(commits, [[1]], 'an empty queue commits nothing');
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
});
