import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import {
  dbCounts,
  expectRawError,
  KEY_A,
  KEY_B,
  postJson,
  type RawResponse,
  rawRequest,
  TWO_KEYS,
  threadExec,
  upload,
  waitFor,
} from './hostile-helpers.ts';

/** 429 in OpenAI's shape, naming the limit, with a whole-seconds Retry-After of at least 1. */
function expectLimit(
  response: RawResponse,
  limit: string,
  kind: 'rate_limit_exceeded' | 'insufficient_quota',
): number {
  const error = expectRawError(response, 429);
  assert.equal(error.param, limit, response.text);
  assert.equal(error.code, kind, response.text);
  assert.equal(error.type, kind === 'insufficient_quota' ? 'insufficient_quota' : 'requests');
  const retryAfter = response.headers['retry-after'];
  assert.equal(typeof retryAfter, 'string', 'a Retry-After header');
  assert.match(retryAfter as string, /^[1-9][0-9]*$/, 'Retry-After in whole seconds');
  return Number(retryAfter);
}

const newThread = async (server: TestServer, key: string): Promise<RawResponse> =>
  postJson(server, '/v1/threads', {}, key);

const idOf = (response: RawResponse): string => {
  assert.equal(response.status, 201, response.text);
  return response.json().id as string;
};

/**
 * Per-key limits (issue 14 §4) over HTTP on a real server and sandbox: each refuses the
 * request beyond it with a 429 in OpenAI's shape and `Retry-After`, only for the key that
 * is over, and nothing of the refused request is kept. Threads, runs at once and stored
 * bytes are counted by the store (so over every replica): those run on each store.
 */
describeEachStore('per-key limits counted by the store', (store) => {
  let server: TestServer;
  const threads: string[] = [];
  before(async () => {
    server = await startTestServer({
      store,
      env: {
        ...TWO_KEYS,
        ANALYST_LIMIT_THREADS: '3',
        ANALYST_LIMIT_RUNS: '1',
        ANALYST_LIMIT_STORED_BYTES: String(64 * 1024),
        ANALYST_LIMIT_REQUESTS_PER_MINUTE: '0',
      },
    });
  });
  after(() => server.close());

  test('threads: the fourth thread of a key is refused (insufficient_quota), another key is not', async () => {
    for (let i = 0; i < 3; i += 1) threads.push(idOf(await newThread(server, KEY_A)));
    const before = await dbCounts(server);
    expectLimit(await newThread(server, KEY_A), 'threads', 'insufficient_quota');
    // A chat without thread_id makes a thread too: refused the same way, before anything is stored.
    const chat = await postJson(
      server,
      '/v1/chat/completions',
      { model: 'offline', messages: [{ role: 'user', content: 'Describe the data.' }] },
      KEY_A,
    );
    expectLimit(chat, 'threads', 'insufficient_quota');
    assert.deepEqual(await dbCounts(server), before, 'nothing stored for refused requests');
    const other = idOf(await newThread(server, KEY_B));
    assert.equal(
      (await rawRequest(server, { method: 'DELETE', path: `/v1/threads/${other}`, key: KEY_B })).status,
      200,
    );
  });

  test('runs: a second run of a key while one goes is refused; after cancel it starts', async (t) => {
    const [t1, t2] = threads as [string, string];
    const long = await postJson(
      server,
      `/v1/threads/${t1}/runs`,
      { cell: { code: 'import time\ntime.sleep(30)' } },
      KEY_A,
    );
    assert.equal(long.status, 201, long.text);
    const runsBefore = (await dbCounts(server)).runs;
    expectLimit(
      await postJson(server, `/v1/threads/${t2}/runs`, { cell: { code: 'print(2)' } }, KEY_A),
      'runs',
      'rate_limit_exceeded',
    );
    assert.equal((await dbCounts(server)).runs, runsBefore, 'the refused run is not stored');
    const cancel = await postJson(server, `/v1/threads/${t1}/runs/${long.json().id}/cancel`, {}, KEY_A);
    assert.equal(cancel.status, 200, cancel.text);
    const cancelledAt = Date.now();
    // Its cell is stopped within a second on a quiet machine; its report is written after.
    await waitFor(async () => !server.service.deps.runs.isBusy(t1), 'the run ended', 60_000);
    t.diagnostic(`the cancelled run let its thread go after ${Date.now() - cancelledAt} ms`);
    const next = await postJson(server, `/v1/threads/${t2}/runs`, { cell: { code: 'print(2)' } }, KEY_A);
    assert.equal(next.status, 201, next.text);
    await server.service.deps.runs.settled();
  });

  test('stored bytes: an upload past the key’s bytes is refused and not kept', async () => {
    const chunk = 'x'.repeat(40 * 1024);
    const first = await upload(server, '/v1/files', { filename: 'a.csv', content: chunk }, KEY_B);
    assert.equal(first.status, 200, first.text);
    const before = await dbCounts(server);
    expectLimit(
      await upload(server, '/v1/files', { filename: 'b.csv', content: chunk }, KEY_B),
      'stored_bytes',
      'insufficient_quota',
    );
    // Files only: the run the previous test started may still be writing its events.
    assert.equal((await dbCounts(server)).files, before.files, 'no file record for the refused upload');
    const list = await rawRequest(server, { path: '/v1/files', key: KEY_B });
    assert.equal((list.json().data as unknown[]).length, 1);
    // Deleting makes room again.
    const gone = await rawRequest(server, {
      method: 'DELETE',
      path: `/v1/files/${first.json().id}`,
      key: KEY_B,
    });
    assert.equal(gone.status, 200, gone.text);
    const again = await upload(server, '/v1/files', { filename: 'b.csv', content: chunk }, KEY_B);
    assert.equal(again.status, 200, again.text);
  });
});

/**
 * Live sessions and one-shot sandboxes are counted by each replica's sandbox manager, not
 * the store: one store kind is enough.
 */
describe('per-key limits of sandboxes', () => {
  let server: TestServer;
  const threads: string[] = [];
  before(async () => {
    server = await startTestServer({
      env: { ...TWO_KEYS, ANALYST_LIMIT_SESSIONS: '2', ANALYST_LIMIT_ONE_SHOT: '1' },
    });
    for (let i = 0; i < 3; i += 1) threads.push(idOf(await newThread(server, KEY_A)));
  });
  after(() => server.close());

  test('live sessions: with two busy, a third thread is refused; once idle, the oldest gives way', async () => {
    const [t1, t2, t3] = threads as [string, string, string];
    const slow = 'import time\ntime.sleep(6)\nprint("done")';
    const busy = [
      postJson(server, `/v1/threads/${t1}/exec`, { code: slow }, KEY_A),
      postJson(server, `/v1/threads/${t2}/exec`, { code: slow }, KEY_A),
    ];
    const busyNow = () => server.service.deps.sandbox.liveSessions?.().filter((s) => s.busy) ?? [];
    await waitFor(async () => busyNow().length === 2, 'both cells running', 20_000);
    expectLimit(
      await postJson(server, `/v1/threads/${t3}/exec`, { code: 'print(3)' }, KEY_A),
      'sessions',
      'rate_limit_exceeded',
    );
    for (const response of await Promise.all(busy)) assert.equal(response.status, 200, response.text);
    // Both idle now: the third thread's cell runs, in place of the least recently used one.
    assert.equal((await threadExec(server, t3, 'print(3)', { key: KEY_A })).status, 'ok');
    const live = () => new Set(server.service.deps.sandbox.liveSessions?.().map((s) => s.id));
    await waitFor(async () => live().has(t3) && live().size === 2, 'two sessions of the key live');
    assert.equal([t1, t2].filter((t) => live().has(t)).length, 1, 'one of the idle two was released');
  });

  test('one-shot sandboxes: a second POST /v1/exec while one runs is refused', async () => {
    const first = postJson(server, '/v1/exec', { code: 'import time\ntime.sleep(5)\nprint(1)' }, KEY_A);
    await new Promise((r) => setTimeout(r, 500));
    const retry = expectLimit(
      await postJson(server, '/v1/exec', { code: 'print(2)' }, KEY_A),
      'one_shot_sandboxes',
      'rate_limit_exceeded',
    );
    assert.ok(retry <= 5, `a short Retry-After for a slot (${retry} s)`);
    const second = postJson(server, '/v1/exec', { code: 'print(2)' }, KEY_B);
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200, 'the other key has its own slots');
    const after = await postJson(server, '/v1/exec', { code: 'print(3)' }, KEY_A);
    assert.equal(after.status, 200, `the slot is free again: ${after.text}`);
  });
});

/** The request rate is each replica's own too. */
describe('per-key request rate', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: { ...TWO_KEYS, ANALYST_SANDBOX: 'off', ANALYST_LIMIT_REQUESTS_PER_MINUTE: '5' },
    });
  });
  after(() => server.close());

  test('the sixth request in a minute is refused with the wait until the next; other keys go on', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await rawRequest(server, { path: '/v1/threads', key: KEY_A });
      assert.equal(response.status, 200, response.text);
    }
    const retry = expectLimit(
      await rawRequest(server, { path: '/v1/threads', key: KEY_A }),
      'requests_per_minute',
      'rate_limit_exceeded',
    );
    // 5 a minute: one token every 12 s.
    assert.ok(retry >= 1 && retry <= 12, `Retry-After ${retry} s`);
    assert.equal((await rawRequest(server, { path: '/v1/threads', key: KEY_B })).status, 200);
    // Unauthenticated health checks are not counted.
    assert.equal((await rawRequest(server, { path: '/health' })).status, 200);
  });
});
