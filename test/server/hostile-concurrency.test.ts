import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { containersOfInstance } from '../helpers/sandbox.ts';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { dbCounts, postJson, type RawResponse, rawRequest, upload, waitFor } from './hostile-helpers.ts';

/** Scripted turns by what the user asks: a quick answer, and a slow one that keeps its thread busy. */
const script = {
  mode: 'match' as const,
  turns: [
    { when: { last_role: 'user', last_contains: 'quick' }, content: '<Answer>Quick answer.</Answer>' },
    {
      when: { last_role: 'user', last_contains: 'slow' },
      delay_ms: 3000,
      content: '<Answer>Slow answer.</Answer>',
    },
  ],
};

interface Expected {
  what: string;
  send: () => Promise<RawResponse>;
  check: (response: RawResponse) => string | undefined;
}

const ok = (response: RawResponse) => (response.status === 200 ? undefined : `HTTP ${response.status}`);
const refused = (status: number) => (response: RawResponse) => {
  if (response.status !== status)
    return `HTTP ${response.status}, expected ${status}: ${response.text.slice(0, 120)}`;
  const body = response.json() as { error?: { message?: string } };
  return typeof body.error?.message === 'string' ? undefined : `not OpenAI's error shape: ${response.text}`;
};

describeEachStore(
  'hostile: concurrency',
  (store) => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ store, script });
    });
    after(() => server.close());

    const chat = (body: Record<string, unknown>) => postJson(server, '/v1/chat/completions', body);
    const threadOf = (response: RawResponse) =>
      (response.json() as { choices: Array<{ message: { thread_id: string } }> }).choices[0]!.message
        .thread_id;
    const userMessages = async (threadId: string) => {
      const messages = (await rawRequest(server, { path: `/v1/threads/${threadId}/messages` })).json() as {
        data: Array<{ role: string; content: Array<{ text: { value: string } }> }>;
      };
      return messages.data.filter((m) => m.role === 'user').map((m) => m.content[0]!.text.value);
    };

    test('200 parallel requests, good and bad, are all answered right with no 5xx', async () => {
      const countsBefore = await dbCounts(server);
      const requests: Expected[] = [];
      for (let i = 0; i < 20; i++) {
        requests.push({
          what: `exec ${i}`,
          send: () => postJson(server, '/v1/exec', { code: `print(${i} * 2)` }),
          check: (response) => {
            if (response.status !== 200) return `HTTP ${response.status}: ${response.text.slice(0, 200)}`;
            const result = response.json() as { status: string; output: string };
            return result.status === 'ok' && result.output === `${i * 2}\n`
              ? undefined
              : `ExecResult ${JSON.stringify(result).slice(0, 300)}`;
          },
        });
      }
      for (let i = 0; i < 60; i++) {
        requests.push({
          what: `files ${i}`,
          send: () => rawRequest(server, { path: '/v1/files' }),
          check: ok,
        });
      }
      for (let i = 0; i < 40; i++) {
        requests.push({
          what: `models ${i}`,
          send: () => rawRequest(server, { path: '/v1/models' }),
          check: (response) =>
            response.status === 200 &&
            (response.json() as { data: Array<{ id: string }> }).data.some((m) => m.id === 'scripted')
              ? undefined
              : `HTTP ${response.status} ${response.text.slice(0, 120)}`,
        });
      }
      for (let i = 0; i < 20; i++) {
        requests.push({
          what: `malformed chat ${i}`,
          send: () => postJson(server, '/v1/chat/completions', '{"messages": [{"role": "user", "content": '),
          check: refused(400),
        });
        requests.push({
          what: `empty exec ${i}`,
          send: () => postJson(server, '/v1/exec', { code: '' }),
          check: refused(400),
        });
        requests.push({
          what: `json upload ${i}`,
          send: () => postJson(server, '/v1/files', { file: 'x' }),
          check: refused(400),
        });
        requests.push({
          what: `unknown thread ${i}`,
          send: () => rawRequest(server, { path: `/v1/threads/thread-${String(i).padStart(24, '0')}` }),
          check: refused(404),
        });
      }
      assert.equal(requests.length, 200);
      // Interleave the kinds so the execs run among everything else.
      const shuffled = requests.map((r, i) => ({ r, key: (i * 7919) % 200 })).sort((a, b) => a.key - b.key);
      const answers = await Promise.all(
        shuffled.map(({ r }) =>
          r.send().then(
            (response) => ({ what: r.what, response, problem: r.check(response) }),
            (error: Error) => ({ what: r.what, response: undefined, problem: `no answer: ${error.message}` }),
          ),
        ),
      );
      const serverErrors = answers.filter((a) => (a.response?.status ?? 0) >= 500).map((a) => a.what);
      assert.deepEqual(serverErrors, [], 'requests answered 5xx');
      assert.deepEqual(
        answers.filter((a) => a.problem).map((a) => `${a.what}: ${a.problem}`),
        [],
      );
      assert.deepEqual(await dbCounts(server), countsBefore, 'the requests created records');
      const instance = (server.service.deps.sandbox as DockerSandboxManager).instanceId;
      await waitFor(
        async () => (await containersOfInstance(instance)).length === 0,
        'every one-shot sandbox is removed',
      );
    });

    test('a second chat on a busy thread gets 409 and leaves the thread as it was', async () => {
      const first = await chat({ messages: [{ role: 'user', content: 'A quick one first.' }] });
      assert.equal(first.status, 200, first.text);
      const threadId = threadOf(first);
      const requestsBefore = server.scripted!.requests.length;
      const slow = chat({ thread_id: threadId, messages: [{ role: 'user', content: 'Now a slow one.' }] });
      await waitFor(
        async () =>
          server.scripted!.requests.length === requestsBefore + 1 &&
          ((await rawRequest(server, { path: `/v1/threads/${threadId}` })).json() as { busy: boolean }).busy,
        'the slow run is waiting for its model',
      );
      const before = await userMessages(threadId);
      for (const stream of [false, true]) {
        const second = await chat({
          thread_id: threadId,
          stream,
          messages: [{ role: 'user', content: `Another quick question (stream ${stream}).` }],
        });
        assert.equal(second.status, 409, second.text.slice(0, 300));
        assert.match(String(second.headers['content-type']), /application\/json/);
        const error = (second.json() as { error: { message: string; code: string } }).error;
        assert.match(error.message, new RegExp(`${threadId}.*already running`));
        assert.equal(error.code, 'conflict');
      }
      assert.deepEqual(await userMessages(threadId), before, 'the refused question was stored');
      assert.equal(
        server.scripted!.requests.length,
        requestsBefore + 1,
        'the refused chat reached the model',
      );

      const done = await slow;
      assert.equal(done.status, 200, done.text.slice(0, 300));
      assert.match(done.text, /Slow answer/);
      assert.deepEqual(await userMessages(threadId), ['A quick one first.', 'Now a slow one.']);
    });

    test('two chats with files sent at the same moment on one thread: one runs, one gets 409 and stores nothing', async () => {
      const first = await chat({ messages: [{ role: 'user', content: 'quick: make the thread' }] });
      assert.equal(first.status, 200, first.text);
      const threadId = threadOf(first);
      // A big attachment makes the copy into the workspace take a moment, as real data does.
      const file = await upload(server, '/v1/files', {
        filename: 'big.csv',
        content: Buffer.alloc(32 * 1024 * 1024, 'a'),
      });
      assert.equal(file.status, 200, file.text);
      const fileId = file.json().id as string;
      const requestsBefore = server.scripted!.requests.length;

      const both = await Promise.all(
        ['slow: left', 'slow: right'].map((content) =>
          chat({ thread_id: threadId, file_ids: [fileId], messages: [{ role: 'user', content }] }),
        ),
      );
      assert.deepEqual(
        both.map((r) => r.status).sort(),
        [200, 409],
        both.map((r) => r.text.slice(0, 200)).join('\n'),
      );
      const winner = both[both[0]!.status === 200 ? 0 : 1]!;
      const winnerQuestion = winner === both[0] ? 'slow: left' : 'slow: right';
      assert.deepEqual(
        await userMessages(threadId),
        ['quick: make the thread', winnerQuestion],
        "the refused chat's question was stored",
      );
      assert.equal(server.scripted!.requests.length, requestsBefore + 1);
    });
  },
  { postgres: 'all' },
);
