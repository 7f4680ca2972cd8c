import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConflictError, NotFoundError } from '../../src/errors/index.ts';
import type { ModelEntry } from '../../src/llm/model.ts';
import { RunService } from '../../src/runs/run-service.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ThreadRecord } from '../../src/store/store.ts';
import { storeThreads } from '../../src/threads/store-threads.ts';
import { EMPTY_WORKSPACE, FakeModel, FakeSandbox } from '../helpers/fakes.ts';

/** `RunService.submit`: the guards every front end relies on, on a real SQLite store. */
describe('submit: one way to start a run', () => {
  let dir: string;
  let store: SqliteStore;
  let counter = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-submit-'));
    store = new SqliteStore(join(dir, 'analyst.db'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const entry: ModelEntry = { id: 'fake', protocol: 'deepanalyze' };
  const newThread = (): Promise<ThreadRecord> => {
    counter += 1;
    return store.createThread({
      id: `thread-${counter.toString(16).padStart(24, '0')}`,
      owner: 'me',
      workspace: 'ws-fake',
      title: null,
      metadata: {},
    });
  };
  const service = (threads = storeThreads(store, async () => EMPTY_WORKSPACE)) =>
    new RunService({ store, sandbox: new FakeSandbox(), threads });

  test('one message on an existing thread continues its stored conversation; several are the whole conversation', async () => {
    const runs = service();
    const thread = await newThread();
    const model = new FakeModel([
      { text: '<Answer>First answer.</Answer>' },
      { text: '<Answer>Second answer.</Answer>' },
      { text: '<Answer>Third answer.</Answer>' },
    ]);
    const ask = async (messages: { role: 'user' | 'assistant'; content: string }[]) => {
      const { run } = await runs.submit({
        owner: 'me',
        threadId: thread.id,
        messages,
        model: { entry, model },
      });
      await runs.idle(thread.id);
      return run;
    };
    await ask([{ role: 'user', content: 'First question' }]);
    await ask([{ role: 'user', content: 'Second question' }]);
    const second = JSON.stringify(model.requests[1]!.messages);
    assert.match(second, /First question/);
    assert.match(second, /First answer/);
    await ask([
      { role: 'user', content: 'Only this' },
      { role: 'assistant', content: 'and this' },
      { role: 'user', content: 'Third question' },
    ]);
    const third = JSON.stringify(model.requests[2]!.messages);
    assert.doesNotMatch(third, /First question|Second question/);
    assert.match(third, /Third question/);
    await runs.shutdown();
  });

  test('a thread being deleted, an unknown thread and a thread already running are refused before anything is stored', async () => {
    const threads = storeThreads(store, async () => EMPTY_WORKSPACE);
    const runs = service(threads);
    const thread = await newThread();
    const model = new FakeModel([{ text: '<Answer>slow</Answer>', delayMs: 200 }]);
    const request = {
      owner: 'me',
      messages: [{ role: 'user' as const, content: 'Go' }],
      model: { entry, model },
    };
    const deletion = threads.locks.beginDelete(thread.id);
    await assert.rejects(runs.submit({ ...request, threadId: thread.id }), ConflictError);
    deletion.end();
    await assert.rejects(
      runs.submit({ ...request, threadId: 'thread-ffffffffffffffffffffffff' }),
      NotFoundError,
    );
    await assert.rejects(
      runs.submit({ ...request, owner: 'someone-else', threadId: thread.id }),
      NotFoundError,
    );
    assert.deepEqual(await store.listRuns(thread.id), []);
    const first = runs.submit({ ...request, threadId: thread.id });
    await assert.rejects(runs.submit({ ...request, threadId: thread.id }), ConflictError);
    const { run } = await first;
    await runs.idle(thread.id);
    assert.deepEqual(
      (await store.listRuns(thread.id)).map((r) => [r.id, r.status]),
      [[run.id, 'completed']],
    );
    await runs.shutdown();
  });

  test('a model named by id is resolved through the models it was given; a cell run calls none', async () => {
    const thread = await newThread();
    const asked: Array<[string | undefined, boolean | undefined]> = [];
    const runs = new RunService({
      store,
      sandbox: new FakeSandbox(),
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
      models: {
        resolve: (id, options) => {
          asked.push([id, options?.client]);
          return { entry, model: options?.client === false ? undefined : new FakeModel([]) };
        },
      },
    });
    const { run, entry: used } = await runs.submit({
      owner: 'me',
      threadId: thread.id,
      messages: [],
      model: 'fake',
      cell: { code: 'print(1)' },
    });
    await runs.idle(thread.id);
    assert.equal(used.id, 'fake');
    assert.deepEqual(asked, [['fake', false]]);
    assert.equal((await store.getRun(run.id))?.protocol, 'cell');
    await runs.shutdown();
  });
});
