import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentEvent } from '../../src/agent/events.ts';
import { EventWriter } from '../../src/runs/event-writer.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { StoredEvent } from '../../src/store/store.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventWriter', () => {
  let dir: string;
  let store: SqliteStore;
  /** The seq numbers of each appendEvents call, in order. */
  let batches: number[][];
  let seq: number;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-event-writer-'));
    store = new SqliteStore(join(dir, 'analyst.db'));
    await store.createThread({ id: 'thread_1', owner: 'o', workspace: 'w', title: null, metadata: {} });
    await store.createRun({ id: 'run_1', thread_id: 'thread_1', model: 'm', protocol: 'p' }, {});
    batches = [];
    seq = 0;
    const append = store.appendEvents.bind(store);
    store.appendEvents = async (runId, events) => {
      batches.push(events.map((e) => e.seq));
      await append(runId, events);
    };
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const numbered = (event: AgentEvent): StoredEvent => ({ seq: seq++, event });
  const text = (t: string): StoredEvent => numbered({ type: 'text-delta', round: 1, text: t });
  const output = (t: string): StoredEvent =>
    numbered({ type: 'execution-output', round: 1, cell_id: 'c', text: t });
  const codeEnd = (): StoredEvent =>
    numbered({ type: 'code-end', round: 1, cell_id: 'c', language: 'python', code: 'print(1)' });
  const stored = async () => (await store.runEvents('run_1')).map((e) => e.seq);

  test('events of one turn are one write, at the end of the turn', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 5_000 });
    writer.add(numbered({ type: 'round-start', round: 1 }));
    writer.add(text('a'));
    writer.add(text('b'));
    assert.deepEqual(batches, [], 'nothing is written before the turn ends');
    await nextTurn();
    await nextTurn();
    assert.deepEqual(batches, [[0, 1, 2]]);
    assert.deepEqual(await stored(), [0, 1, 2]);
  });

  test('a stream of text is written at most every interval, the first piece at once', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 300 });
    writer.add(text('first'));
    await nextTurn();
    await nextTurn();
    assert.deepEqual(batches, [[0]], 'the first piece after a quiet spell is not held back');
    for (let i = 0; i < 5; i++) {
      writer.add(text(`piece ${i}`));
      await nextTurn();
    }
    writer.add(output('cell output waits too'));
    await sleep(20);
    assert.deepEqual(batches, [[0]], 'later pieces wait for the interval');
    await sleep(400);
    assert.deepEqual(batches, [[0], [1, 2, 3, 4, 5, 6]]);
    assert.deepEqual(await stored(), [0, 1, 2, 3, 4, 5, 6]);
  });

  test('any other event writes what waits with it at the end of its turn, in order', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 5_000 });
    writer.add(text('a'));
    await nextTurn();
    await nextTurn();
    writer.add(text('b'));
    writer.add(text('c'));
    await nextTurn();
    await nextTurn();
    assert.deepEqual(batches, [[0]]);
    writer.add(codeEnd());
    await nextTurn();
    await nextTurn();
    assert.deepEqual(
      batches,
      [[0], [1, 2, 3]],
      'the cell’s code did not wait 5 s, nor did the text before it',
    );
    await writer.flush();
    assert.deepEqual(await stored(), [0, 1, 2, 3]);
  });

  test('flush writes what waits at once and resolves when it is stored', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 5_000 });
    writer.add(text('a'));
    await writer.flush();
    writer.add(text('b'));
    writer.add(text('c'));
    await writer.flush();
    assert.deepEqual(batches, [[0], [1, 2]]);
    assert.deepEqual(await stored(), [0, 1, 2]);
    await sleep(20); // no timer of the flushed pieces writes again
    assert.deepEqual(batches, [[0], [1, 2]]);
  });

  test('an interval of 0 writes streamed pieces every turn', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 0 });
    for (const piece of ['a', 'b', 'c']) {
      writer.add(text(piece));
      await nextTurn();
      await nextTurn();
    }
    assert.deepEqual(batches, [[0], [1], [2]]);
  });

  test('a failed write is the next flush’s error', async () => {
    const writer = new EventWriter(store, 'run_1', { streamedIntervalMs: 0 });
    writer.add(text('a'));
    writer.add({ seq: 0, event: { type: 'text-delta', round: 1, text: 'the same seq again' } });
    await nextTurn();
    await nextTurn();
    await assert.rejects(writer.flush(), /UNIQUE|constraint/i);
  });
});
