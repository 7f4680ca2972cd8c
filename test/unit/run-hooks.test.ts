import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LimitExceededError } from '../../src/errors/index.ts';
import type { ModelEntry } from '../../src/llm/model.ts';
import type { AfterRun, RunMonitor, RunPolicy } from '../../src/runs/run-hooks.ts';
import { RunService } from '../../src/runs/run-service.ts';
import type { SandboxManager } from '../../src/sandbox/sandbox.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ThreadRecord } from '../../src/store/store.ts';
import { storeThreads } from '../../src/threads/store-threads.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { EMPTY_WORKSPACE, FakeModel, FakeSandbox } from '../helpers/fakes.ts';

/** A policy that lets one owner in and refuses the other, with a sandbox of its own. */
class OneOwnerPolicy implements RunPolicy {
  readonly released: string[] = [];
  constructor(
    private readonly allowed: string,
    readonly sandbox: SandboxManager,
  ) {}
  maxRunsFor(): number | undefined {
    return undefined;
  }
  async admit(thread: ThreadRecord): Promise<() => void> {
    if (thread.owner !== this.allowed)
      throw new LimitExceededError('over the limit', { limit: 'sessions', retryAfterSeconds: 1 });
    return () => this.released.push(thread.id);
  }
  sandboxFor(): SandboxManager {
    return this.sandbox;
  }
}

/** Notes each call, in order, across every AfterRun it is given to. */
class Notes implements AfterRun {
  constructor(
    private readonly name: string,
    private readonly log: string[],
    private readonly delayMs = 0,
  ) {}
  async afterRun(thread: ThreadRecord, workspace: Workspace): Promise<void> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    this.log.push(`${this.name}:${thread.id}:${workspace === EMPTY_WORKSPACE}`);
  }
}

class Errors implements RunMonitor {
  readonly seen: unknown[] = [];
  error(error: unknown): void {
    this.seen.push(error);
  }
  interrupted(): void {}
}

/** The objects the run service is given instead of callbacks (src/runs/run-hooks.ts). */
describe('run service hooks', () => {
  let dir: string;
  let store: SqliteStore;
  let counter = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-hooks-'));
    store = new SqliteStore(join(dir, 'analyst.db'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const entry: ModelEntry = { id: 'fake', protocol: 'deepanalyze' };
  const newThread = (owner: string): Promise<ThreadRecord> => {
    counter += 1;
    return store.createThread({
      id: `thread-${counter.toString(16).padStart(24, '0')}`,
      owner,
      workspace: 'ws-fake',
      title: null,
      metadata: {},
    });
  };

  test('the policy refuses a run before it is stored and gives the thread back; an admitted run uses its sandbox and is released at its end', async () => {
    const serviceSandbox = new FakeSandbox();
    const policySandbox = new FakeSandbox();
    const policy = new OneOwnerPolicy('me', policySandbox);
    const runs = new RunService({
      store,
      sandbox: serviceSandbox,
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
      policy,
    });
    const refused = await newThread('someone');
    const model = () =>
      new FakeModel([{ text: '<Code>\nprint(1)\n</Code>' }, { text: '<Answer>one</Answer>' }]);
    const ask = (thread: ThreadRecord) =>
      runs.submit({
        owner: thread.owner,
        threadId: thread.id,
        messages: [{ role: 'user', content: 'Go' }],
        model: { entry, model: model() },
      });
    await assert.rejects(ask(refused), LimitExceededError);
    assert.deepEqual(await store.listRuns(refused.id), []);
    assert.equal(runs.isBusy(refused.id), false, 'the refused run gave its slot back');

    const thread = await newThread('me');
    await ask(thread);
    await runs.idle(thread.id);
    assert.deepEqual(
      policySandbox.cells.map((c) => c.code.trim()),
      ['print(1)'],
    );
    assert.equal(serviceSandbox.cells.length, 0);
    assert.deepEqual(policy.released, [thread.id]);
    await runs.shutdown();
  });

  test('after-run work runs in the order given, with the run workspace, and afterRunDone waits for it', async () => {
    const log: string[] = [];
    const monitor = new Errors();
    const runs = new RunService({
      store,
      sandbox: new FakeSandbox(),
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
      afterRun: [new Notes('reports', log, 30), new Notes('usage', log)],
      monitor,
    });
    const thread = await newThread('me');
    const { run } = await runs.submit({
      owner: 'me',
      threadId: thread.id,
      messages: [{ role: 'user', content: 'Go' }],
      model: { entry, model: new FakeModel([{ text: '<Answer>done</Answer>' }]) },
    });
    for await (const { event } of runs.subscribe(run.id)) if (event.type === 'run-end') break;
    await runs.afterRunDone(thread.id);
    assert.deepEqual(log, [`reports:${thread.id}:true`, `usage:${thread.id}:true`]);
    assert.deepEqual(monitor.seen, []);
    await runs.shutdown();
  });

  test('a failing after-run work is told to the monitor and stops the ones after it', async () => {
    const log: string[] = [];
    const monitor = new Errors();
    const broken: AfterRun = {
      afterRun: async () => {
        throw new Error('the report could not be written');
      },
    };
    const runs = new RunService({
      store,
      sandbox: new FakeSandbox(),
      threads: storeThreads(store, async () => EMPTY_WORKSPACE),
      afterRun: [broken, new Notes('usage', log)],
      monitor,
    });
    const thread = await newThread('me');
    await runs.submit({
      owner: 'me',
      threadId: thread.id,
      messages: [{ role: 'user', content: 'Go' }],
      model: { entry, model: new FakeModel([{ text: '<Answer>done</Answer>' }]) },
    });
    await runs.idle(thread.id);
    await runs.settled();
    assert.deepEqual(log, []);
    assert.deepEqual(
      monitor.seen.map((e) => (e as Error).message),
      ['the report could not be written'],
    );
    await runs.shutdown();
  });
});
