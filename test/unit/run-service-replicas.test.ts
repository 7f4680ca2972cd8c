import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConflictError } from '../../src/errors/index.ts';
import type { ModelEntry } from '../../src/llm/model.ts';
import { RunService } from '../../src/runs/run-service.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { StoredEvent, ThreadRecord } from '../../src/store/store.ts';
import { storeThreads } from '../../src/threads/store-threads.ts';
import { EMPTY_WORKSPACE, FakeModel, FakeSandbox, type FakeTurn } from '../helpers/fakes.ts';
import { freshDatabase, queryDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/postgres.ts';

/**
 * Two run services on one PostgreSQL database, as two replicas are (each with its own pool
 * and LISTEN connection), with fakes of the model and sandbox: the fast tier of what
 * test/scale/replicas.test.ts checks with two real server processes.
 */
describe('runs across replicas on one PostgreSQL', {
  skip: TEST_DATABASE_URL ? false : 'no PostgreSQL server (ANALYST_TEST_DATABASE_URL); npm test starts one',
}, () => {
  let database: TestDatabase;
  let storeA: PostgresStore;
  let storeB: PostgresStore;
  let counter = 0;
  const services: RunService[] = [];
  before(async () => {
    database = await freshDatabase();
    storeA = await PostgresStore.open({ url: database.url });
    storeB = await PostgresStore.open({ url: database.url });
  });
  after(async () => {
    for (const service of services) await service.shutdown(1000);
    await storeA.close();
    await storeB.close();
    await database.drop();
  });

  const entry: ModelEntry = { id: 'fake', protocol: 'deepanalyze' };
  /** Runs any replica's sweep marked interrupted (any live replica may sweep). */
  const interrupted: string[] = [];
  const replica = (store: PostgresStore, name: string, sandbox = new FakeSandbox(), leaseMs = 2000) => {
    const service = new RunService({
      store,
      sandbox,
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
      replicas: { replica: name, leaseMs, pollMs: 200 },
      monitor: { error: () => {}, interrupted: (ids) => interrupted.push(...ids) },
    });
    services.push(service);
    return { service };
  };
  const newThread = async (): Promise<ThreadRecord> => {
    counter += 1;
    return storeA.createThread({
      id: `thread-${counter.toString(16).padStart(24, '0')}`,
      owner: 'me',
      workspace: 'ws-fake',
      title: null,
      metadata: {},
    });
  };
  const start = (service: RunService, thread: ThreadRecord, turns: FakeTurn[]) =>
    service.start(
      { thread, messages: [{ role: 'user', content: 'Go' }], entry, model: new FakeModel(turns) },
      service.reserve(thread.id),
    );
  const collect = async (events: AsyncIterable<StoredEvent>) => {
    const out: StoredEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  test('a run on A streams to a subscriber on B as it happens, in order, from any point', async () => {
    const a = replica(storeA, 'replica-a');
    const b = replica(storeB, 'replica-b');
    const thread = await newThread();
    const run = await start(a.service, thread, [
      {
        text: '<Analyze>Counting the rows of the table, one at a time.</Analyze><Code>\nwork()\n</Code>',
        chunk: 3,
      },
      { text: '<Answer>Done: the table has rows.</Answer>', chunk: 3, delayMs: 800 },
    ]);
    const onB = collect(b.service.subscribe(run.id));
    // When A made each event (its own live log) and when B, reading from `after: 4`, got it.
    const madeAt = new Map<number, number>();
    const onA = (async () => {
      const out: StoredEvent[] = [];
      for await (const stored of a.service.subscribe(run.id)) {
        madeAt.set(stored.seq, Date.now());
        out.push(stored);
      }
      return out;
    })();
    const fromB: StoredEvent[] = [];
    const gotAt = new Map<number, number>();
    for await (const stored of b.service.subscribe(run.id, { after: 4 })) {
      fromB.push(stored);
      gotAt.set(stored.seq, Date.now());
    }
    const all = await onA;
    assert.deepEqual(
      (await onB).map((e) => e.event),
      all.map((e) => e.event),
      'B saw exactly what A saw',
    );
    assert.deepEqual(
      fromB.map((e) => e.seq),
      all.slice(5).map((e) => e.seq),
    );
    assert.equal(all.at(-1)?.event.type, 'run-end');
    // The answer starts 800 ms after the cell: B had the cell's end before A made the answer.
    const cellEnd = all.find((e) => e.event.type === 'execution-end')!.seq;
    const answer = all.find((e) => e.seq > cellEnd && e.event.type === 'text-delta')!.seq;
    assert.ok(
      gotAt.get(cellEnd)! < madeAt.get(answer)!,
      `B got the cell's end ${gotAt.get(cellEnd)! - madeAt.get(cellEnd)!} ms after A made it, after the answer began`,
    );
  });

  test('one run per thread across replicas; cancel through B stops the run on A', async () => {
    const a = replica(storeA, 'replica-a2', new FakeSandbox([{ match: 'sleep', durationMs: 20_000 }]));
    const b = replica(storeB, 'replica-b2');
    const thread = await newThread();
    const run = await start(a.service, thread, [{ text: '<Code>\nsleep()\n</Code>' }]);
    await assert.rejects(start(b.service, thread, [{ text: '<Answer>no</Answer>' }]), ConflictError);
    assert.equal(b.service.isBusy(thread.id), false, "B's refused claim is given back");
    assert.deepEqual([...(await b.service.busyThreads([thread.id]))], [thread.id]);
    const events = collect(b.service.subscribe(run.id));
    await new Promise((r) => setTimeout(r, 100));
    const asked = Date.now();
    assert.equal(await b.service.cancelThread(thread.id), true);
    const seen = await events;
    assert.ok(Date.now() - asked < 1500, `ended ${Date.now() - asked} ms after the cancel`);
    const end = seen.at(-1)?.event;
    assert.ok(end?.type === 'run-end' && end.status === 'cancelled', JSON.stringify(end));
    await b.service.idle(thread.id);
    assert.equal((await storeB.getRun(run.id))?.status, 'cancelled');
    await b.service.cancel(run.id);
    // Now B may run on the thread.
    const next = await start(b.service, thread, [{ text: '<Answer>yes</Answer>' }]);
    assert.equal((await collect(a.service.subscribe(next.id))).at(-1)?.event.type, 'run-end');
  });

  test("a replica that stops renewing loses its runs to another's sweep within the lease", async () => {
    const b = replica(storeB, 'replica-b3', new FakeSandbox(), 1200);
    const thread = await newThread();
    const ghostRun = `run-${'9'.repeat(24)}`;
    // What a replica killed with SIGKILL leaves: a running run whose lease nobody renews.
    await storeA.createRun(
      { id: ghostRun, thread_id: thread.id, model: 'fake', protocol: 'deepanalyze' },
      { lease: { replica: 'ghost', ttlMs: 900 } },
    );
    await storeA.appendEvents(ghostRun, [{ seq: 0, event: { type: 'text-delta', round: 1, text: 'half' } }]);
    const follower = collect(b.service.subscribe(ghostRun));
    const started = Date.now();
    const seen = await follower;
    const waited = Date.now() - started;
    assert.deepEqual(
      seen.map((e) => e.seq),
      [0],
      'the follower got what was stored and then its stream ended',
    );
    assert.ok(waited < 1200 + 500, `interrupted after ${waited} ms`);
    assert.equal((await storeB.getRun(ghostRun))?.status, 'interrupted');
    assert.deepEqual(interrupted, [ghostRun], 'a sweep reported it (its sandbox is reaped)');
  });

  test('a replica whose lease was taken stops its run', async () => {
    const a = replica(storeA, 'replica-a4', new FakeSandbox([{ match: 'sleep', durationMs: 20_000 }]), 800);
    const thread = await newThread();
    const run = await start(a.service, thread, [{ text: '<Code>\nsleep()\n</Code>' }]);
    const events = collect(a.service.subscribe(run.id));
    await new Promise((r) => setTimeout(r, 100));
    // As if another replica had judged A dead and taken the run: it is no longer A's to go on with.
    await queryDatabase(database.url, "UPDATE runs SET replica = 'someone-else' WHERE id = $1", [run.id]);
    const taken = Date.now();
    const end = (await events).at(-1)?.event;
    assert.ok(end?.type === 'run-end' && end.status === 'cancelled', JSON.stringify(end));
    assert.ok(Date.now() - taken < 800, `A stopped ${Date.now() - taken} ms after losing the lease`);
  });
});
