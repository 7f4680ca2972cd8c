import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ConflictError } from '../../src/errors/index.ts';
import type { ModelEntry } from '../../src/llm/model.ts';
import { RunService } from '../../src/runs/run-service.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store, StoredEvent, ThreadRecord } from '../../src/store/store.ts';
import { storeThreads } from '../../src/threads/store-threads.ts';
import { EMPTY_WORKSPACE, FakeModel, FakeSandbox, type FakeTurn } from '../helpers/fakes.ts';
import { freshDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** The run service with a real store (SQLite, PostgreSQL) and in-process fakes of the model and sandbox. */
describeEachStore('runs owned by the service', (kind) => {
  let dir: string;
  let database: TestDatabase | undefined;
  let store: Store;
  let counter = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-runs-'));
    database = kind === 'postgres' ? await freshDatabase() : undefined;
    store = database
      ? await PostgresStore.open({ url: database.url })
      : new SqliteStore(join(dir, 'analyst.db'));
  });
  after(async () => {
    await store.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const entry: ModelEntry = { id: 'fake', protocol: 'deepanalyze' };

  async function setup(turns: FakeTurn[], sandbox = new FakeSandbox()) {
    counter += 1;
    const thread: ThreadRecord = await store.createThread({
      id: `thread-${counter.toString(16).padStart(24, '0')}`,
      owner: 'me',
      workspace: 'ws-fake',
      title: null,
      metadata: {},
    });
    const runs = new RunService({
      store,
      sandbox,
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
    });
    const start = (question = 'What is the total?') =>
      runs.start(
        { thread, messages: [{ role: 'user', content: question }], entry, model: new FakeModel(turns) },
        runs.reserve(thread.id),
      );
    return { runs, thread, start };
  }

  const collect = async (events: AsyncIterable<StoredEvent>) => {
    const out: StoredEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  test('start returns at once; the run finishes with nobody listening and everything is stored', async () => {
    const { runs, start, thread } = await setup([
      { text: '<Code>\nprint(1)\n</Code>', delayMs: 30 },
      { text: '<Answer>It is 1.</Answer>' },
    ]);
    const run = await start();
    assert.equal(run.status, 'running');
    assert.equal(runs.isBusy(thread.id), true);
    await runs.idle(thread.id);
    const stored = await store.getRun(run.id);
    assert.deepEqual([stored?.status, stored?.answer], ['completed', 'It is 1.']);
    const messages = await store.listMessages(thread.id);
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.match(messages[1]!.content, /<Answer>\nIt is 1\.\n<\/Answer>/);
    assert.equal((await store.getThread('me', thread.id))?.title, 'What is the total?');
    const replay = await collect(runs.subscribe(run.id));
    assert.deepEqual(
      replay.map((e) => e.seq),
      replay.map((_, i) => i),
    );
    assert.equal(replay.at(-1)!.event.type, 'run-end');
  });

  test('subscribers from any point get every later event exactly once, live or stored', async () => {
    const turns: FakeTurn[] = [
      {
        text: '<Analyze>Looking at the data closely, step by step.</Analyze><Code>\nwork()\n</Code>',
        chunk: 2,
        delayMs: 5,
      },
      { text: '<Answer>Done with the work, all of it.</Answer>', chunk: 2 },
    ];
    const { runs, start } = await setup(
      turns,
      new FakeSandbox([{ match: 'work', output: 'worked\n', durationMs: 40 }]),
    );
    const run = await start();
    const whole = collect(runs.subscribe(run.id));
    await new Promise((r) => setTimeout(r, 20));
    const late = collect(runs.subscribe(run.id, { after: 10 }));
    const all = await whole;
    const fromEleven = await late;
    assert.deepEqual(
      all.map((e) => e.seq),
      all.map((_, i) => i),
      'no gap, no duplicate',
    );
    assert.deepEqual(
      fromEleven.map((e) => e.seq),
      all.slice(11).map((e) => e.seq),
    );
    for (const point of [0, 5, all.length - 2, all.length - 1]) {
      const stored = await collect(runs.subscribe(run.id, { after: point }));
      assert.deepEqual(
        stored.map((e) => e.seq),
        all.slice(point + 1).map((e) => e.seq),
      );
    }
  });

  test('cancel is a call: a long cell stops and the run ends cancelled', async () => {
    const sandbox = new FakeSandbox([{ match: 'sleep', durationMs: 20_000 }]);
    const { runs, start } = await setup([{ text: '<Code>\nsleep()\n</Code>' }], sandbox);
    const run = await start();
    const events = collect(runs.subscribe(run.id));
    await new Promise((r) => setTimeout(r, 30));
    const started = Date.now();
    assert.equal(await runs.cancel(run.id), true);
    const seen = await events;
    assert.ok(Date.now() - started < 1000);
    const endEvent = seen.at(-1)!.event;
    assert.ok(endEvent.type === 'run-end' && endEvent.status === 'cancelled');
    assert.equal((await store.getRun(run.id))?.status, 'cancelled');
    assert.equal(await runs.cancel(run.id), false, 'a finished run cannot be cancelled');
  });

  test('one run per thread: a second reservation is refused until the first ends', async () => {
    const { runs, thread, start } = await setup([{ text: '<Answer>a</Answer>', delayMs: 30 }]);
    const run = await start();
    assert.throws(() => runs.reserve(thread.id), ConflictError);
    await collect(runs.subscribe(run.id));
    await runs.idle(thread.id);
    runs.reserve(thread.id).release();
  });

  test('a cell run executes one cell with no model and adds no message', async () => {
    const sandbox = new FakeSandbox([{ match: 'edited', output: 'edited!\n' }]);
    const { runs, thread } = await setup([], sandbox);
    const run = await runs.start(
      { thread, messages: [], entry, cell: { code: 'print("edited")' } },
      runs.reserve(thread.id),
    );
    const events = await collect(runs.subscribe(run.id));
    const types = events.map((e) => e.event.type);
    assert.deepEqual(types.slice(0, 4), ['run-start', 'round-start', 'code-start', 'code-end']);
    assert.ok(types.includes('execution-end'));
    assert.equal((await store.getRun(run.id))?.protocol, 'cell');
    assert.deepEqual(await store.listMessages(thread.id), []);
  });
});
