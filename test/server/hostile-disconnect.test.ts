import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { containersOfInstance, docker } from '../helpers/sandbox.ts';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { postJson, rawRequest, readStreamUntil, threadExec, waitFor } from './hostile-helpers.ts';

const SLEEP =
  '<Analyze>This will take a while.</Analyze>\n<Code>\nimport time\ntime.sleep(30)\nprint("woke up")\n</Code>';

/** Both questions start a 30 s cell; the model must never be asked to go on after it. */
const script = {
  mode: 'match' as const,
  turns: [
    { when: { last_role: 'user', last_contains: 'sleep' }, content: SLEEP },
    {
      when: { last_role: 'execute' },
      content: '<Answer>The cell finished, which it should not have.</Answer>',
    },
  ],
};

interface ThreadView {
  busy: boolean;
  runs: Array<{ status: string; reason: string | null }>;
}

/** The containers of this server's sandbox manager, with their kind and owner labels. */
async function containersOf(instance: string): Promise<Array<{ name: string; kind: string; owner: string }>> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.instance}=${instance}`] },
  });
  return list.map((c) => ({
    name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
    kind: c.Labels?.[LABELS.kind] ?? '',
    owner: c.Labels?.[LABELS.owner] ?? '',
  }));
}

describeEachStore(
  'hostile: clients that hang up mid-run',
  (store) => {
    let server: TestServer;
    let instance: string;
    before(async () => {
      server = await startTestServer({ store, script });
      instance = (server.service.deps.sandbox as DockerSandboxManager).instanceId;
    });
    after(() => server.close());

    const thread = async (id: string) =>
      (await rawRequest(server, { path: `/v1/threads/${id}` })).json() as unknown as ThreadView;

    /** After a hang-up: the run ends cancelled, its cell was stopped, the model was not asked again. */
    async function assertCancelled(threadId: string, modelRequestsBefore: number): Promise<void> {
      await waitFor(async () => !(await thread(threadId)).busy, 'the thread is no longer busy', 8000);
      const view = await thread(threadId);
      assert.equal(view.runs.length, 1);
      assert.equal(view.runs[0]!.status, 'cancelled', JSON.stringify(view.runs[0]));
      const events = (await rawRequest(server, { path: `/v1/threads/${threadId}/events` })).json() as {
        data: Array<{ type: string; result?: { status: string; duration_ms: number; output: string } }>;
      };
      const executions = events.data.filter((e) => e.type === 'execution-end');
      assert.equal(executions.length, 1);
      assert.equal(executions[0]!.result!.status, 'cancelled');
      assert.ok(executions[0]!.result!.duration_ms < 20_000, 'the cell ran on after the hang-up');
      assert.ok(!executions[0]!.result!.output.includes('woke up'));
      assert.equal(server.scripted!.requests.length, modelRequestsBefore + 1, 'the model was asked to go on');
      // The thread's sandbox is free at once: were the cell still sleeping, this would queue behind it.
      const started = Date.now();
      const next = await threadExec(server, threadId, 'print("free")');
      assert.equal(next.output, 'free\n');
      assert.ok(Date.now() - started < 8000, `the next cell waited ${Date.now() - started} ms`);
      // Only the thread's own session sandbox is left, and deleting the thread removes it.
      for (const container of await containersOf(instance)) {
        assert.deepEqual(
          { kind: container.kind, owner: container.owner },
          { kind: 'session', owner: threadId },
        );
      }
      const deleted = await rawRequest(server, { method: 'DELETE', path: `/v1/threads/${threadId}` });
      assert.equal(deleted.status, 200, deleted.text);
      await waitFor(
        async () => (await containersOfInstance(instance)).length === 0,
        'no sandbox container is left',
      );
    }

    test('a streaming chat whose client disconnects is cancelled and its cell killed', async () => {
      const modelRequestsBefore = server.scripted!.requests.length;
      const controller = new AbortController();
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          stream: true,
          messages: [{ role: 'user', content: 'Please sleep (stream).' }],
        }),
        signal: controller.signal,
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      await readStreamUntil(reader, (content) => content.includes('</Code>'));
      const threads = (await rawRequest(server, { path: '/v1/threads' })).json() as {
        data: Array<{ id: string }>;
      };
      const threadId = threads.data[0]!.id;
      await waitFor(
        async () => (await containersOf(instance)).some((c) => c.owner === threadId),
        'the cell’s sandbox is running',
      );
      await new Promise((r) => setTimeout(r, 1000)); // the cell is asleep inside it
      controller.abort();
      await reader.cancel().catch(() => {});
      await assertCancelled(threadId, modelRequestsBefore);
    });

    test('a non-streaming chat whose client disconnects is cancelled and its cell killed', async () => {
      const modelRequestsBefore = server.scripted!.requests.length;
      const controller = new AbortController();
      const pending = fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Please sleep (plain).' }] }),
        signal: controller.signal,
      }).catch((error: Error) => error);
      let threadId = '';
      await waitFor(async () => {
        const threads = (await rawRequest(server, { path: '/v1/threads' })).json() as {
          data: Array<{ id: string }>;
        };
        threadId = threads.data[0]?.id ?? '';
        return threadId !== '' && (await containersOf(instance)).some((c) => c.owner === threadId);
      }, 'the cell’s sandbox is running');
      await new Promise((r) => setTimeout(r, 1500));
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await assertCancelled(threadId, modelRequestsBefore);
    });

    test('a thread exec whose client disconnects stops its cell', async () => {
      const created = await postJson(server, '/v1/chat/completions', {
        model: 'offline',
        messages: [{ role: 'user', content: 'Describe the data.' }],
      });
      const threadId = (created.json() as { choices: Array<{ message: { thread_id: string } }> }).choices[0]!
        .message.thread_id;
      const controller = new AbortController();
      const pending = fetch(`${server.url}/v1/threads/${threadId}/exec`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'import time\ntime.sleep(25)\nopen("woke.txt", "w").write("x")' }),
        signal: controller.signal,
      }).catch((error: Error) => error);
      await new Promise((r) => setTimeout(r, 1500));
      controller.abort();
      assert.ok((await pending) instanceof Error);
      const started = Date.now();
      const next = await threadExec(server, threadId, 'import os\nprint(os.path.exists("woke.txt"))');
      assert.equal(next.output, 'False\n');
      assert.ok(
        Date.now() - started < 8000,
        `the next cell waited ${Date.now() - started} ms behind the abandoned one`,
      );
      await rawRequest(server, { method: 'DELETE', path: `/v1/threads/${threadId}` });
    });

    test('a one-shot exec whose client disconnects leaves no sandbox behind', async () => {
      const controller = new AbortController();
      const pending = fetch(`${server.url}/v1/exec`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'import time\ntime.sleep(25)' }),
        signal: controller.signal,
      }).catch((error: Error) => error);
      await waitFor(
        async () => (await containersOf(instance)).some((c) => c.kind === 'ephemeral'),
        'the one-shot sandbox is running',
      );
      await new Promise((r) => setTimeout(r, 1000));
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await waitFor(
        async () => !(await containersOf(instance)).some((c) => c.kind === 'ephemeral'),
        'the one-shot sandbox is removed',
        8000,
      );
    });

    test('closing the server leaves no container of its sandbox manager', async () => {
      const response = await postJson(server, '/v1/chat/completions', {
        model: 'offline',
        messages: [{ role: 'user', content: 'Describe the data.' }],
      });
      assert.equal(response.status, 200);
      assert.ok(
        (await containersOfInstance(instance)).length > 0,
        'the chat left its session sandbox for reuse',
      );
      await server.close();
      assert.deepEqual(await containersOfInstance(instance), []);
    });
  },
  { postgres: 'all' },
);
