import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import { json, startTestServer, type TestServer } from './helpers.ts';

/** One event of a run's SSE stream, with the `id:` line it came with. */
interface SseEvent {
  id: number;
  data: { seq: number; type: string; [field: string]: unknown };
}

/**
 * Reads a run's event stream until it ends or `stopAfter` events were read (then it hangs up,
 * as a reloading page does). Sends `Last-Event-ID` when `lastEventId` is given.
 */
async function readEvents(
  server: TestServer,
  path: string,
  options: { lastEventId?: number; stopAfter?: number } = {},
): Promise<{ events: SseEvent[]; ended: boolean }> {
  const headers: Record<string, string> = {};
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const controller = new AbortController();
  const response = await fetch(`${server.url}${path}`, { headers, signal: controller.signal });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = response.body!.getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { events, ended: true };
    buffer += Buffer.from(value).toString();
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      if (block.startsWith(':')) continue; // heartbeat
      const id = /^id: (-?\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      assert.ok(id !== undefined && data !== undefined, `malformed event: ${block}`);
      const event = { id: Number(id), data: JSON.parse(data) as SseEvent['data'] };
      assert.equal(event.id, event.data.seq);
      events.push(event);
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        controller.abort();
        await reader.cancel().catch(() => {});
        return { events, ended: false };
      }
    }
  }
}

describeEachStore('runs owned by the service, over HTTP', (store) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      store,
      script: {
        mode: 'match',
        turns: [
          {
            when: { last_contains: 'Count slowly' },
            content:
              '<Analyze>I will count the rows of the file one by one, slowly and carefully.</Analyze>\n<Code>\nimport time\nfor i in range(3):\n    print("step", i, flush=True)\n    time.sleep(0.4)\n</Code>',
            chunk_chars: 4,
            chunk_delay_ms: 15,
          },
          {
            when: { last_role: 'execute', any_contains: 'Count slowly' },
            content: '<Answer>There were three steps, counted one at a time.</Answer>',
            chunk_chars: 3,
            chunk_delay_ms: 15,
          },
          {
            when: { last_contains: 'Wait forever' },
            content: '<Code>\nimport time\nprint("waiting", flush=True)\ntime.sleep(60)\n</Code>',
          },
          { when: { last_role: 'execute' }, content: '<Answer>stopped</Answer>' },
        ],
      },
    });
  });
  after(() => server.close());

  async function newThread(title: string): Promise<string> {
    const response = await server.fetch('/v1/threads', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title, metadata: { model: 'scripted' } }),
    });
    assert.equal(response.status, 201);
    const thread = await json(response);
    assert.deepEqual(
      [thread.object, thread.title, thread.metadata],
      ['thread', title, { model: 'scripted' }],
    );
    return thread.id as string;
  }

  async function startRun(threadId: string, question: string): Promise<string> {
    const response = await server.fetch(`/v1/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: question }] }),
    });
    assert.equal(response.status, 201);
    const run = await json(response);
    assert.deepEqual([run.object, run.status, run.thread_id], ['thread.run', 'running', threadId]);
    return run.id as string;
  }

  test('a run goes on without listeners; reconnects at several points and a second client see every event once', async () => {
    const threadId = await newThread('Counting');
    const runId = await startRun(threadId, 'Count slowly');
    const path = `/v1/threads/${threadId}/runs/${runId}/events`;
    const second = readEvents(server, path);
    const pieces: SseEvent[] = [];
    let last: number | undefined;
    for (const stopAfter of [3, 7, 12]) {
      const part = await readEvents(server, path, { lastEventId: last, stopAfter });
      pieces.push(...part.events);
      last = part.events.at(-1)?.id;
      await new Promise((r) => setTimeout(r, 80)); // the client is away; the run goes on
    }
    const rest = await readEvents(server, `${path}?after=${last}`);
    assert.ok(rest.ended);
    pieces.push(...rest.events);
    const whole = await second;
    assert.deepEqual(
      pieces.map((e) => e.id),
      whole.events.map((e) => e.id),
      'the reconnecting client saw exactly the events of the continuous one',
    );
    assert.deepEqual(
      whole.events.map((e) => e.id),
      whole.events.map((_, i) => i),
      'no gap, no duplicate',
    );
    assert.equal(whole.events.at(-1)?.data.type, 'run-end');
    const replay = await readEvents(server, path);
    assert.deepEqual(
      replay.events.map((e) => e.data),
      whole.events.map((e) => e.data),
      'a finished run replays',
    );
    const run = await json(await server.fetch(`/v1/threads/${threadId}/runs/${runId}`));
    assert.deepEqual(
      [run.status, run.answer],
      ['completed', 'There were three steps, counted one at a time.'],
    );
    // What it cost: the one cell's time and its process's peak memory, the model's rounds.
    const cost = run.cost as { model_ms: number; cells_ms: number; cells: number; peak_memory_bytes: number };
    assert.equal(cost.cells, 1);
    assert.ok(cost.cells_ms > 0 && cost.model_ms >= 0, JSON.stringify(cost));
    assert.ok(
      cost.peak_memory_bytes > 10 * 2 ** 20 && cost.peak_memory_bytes < 512 * 2 ** 20,
      JSON.stringify(cost),
    );
    assert.deepEqual(whole.events.at(-1)?.data.cost, cost, 'the run-end event carries the same cost');
    const list = await json(await server.fetch(`/v1/threads/${threadId}/runs`));
    assert.deepEqual(
      (list.data as Array<{ id: string }>).map((r) => r.id),
      [runId],
    );
  });

  test('a second run on a busy thread is refused with 409', async () => {
    const threadId = await newThread('Busy');
    const runId = await startRun(threadId, 'Count slowly');
    const again = await server.fetch(`/v1/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Count slowly' }] }),
    });
    assert.equal(again.status, 409);
    await readEvents(server, `/v1/threads/${threadId}/runs/${runId}/events`);
  });

  test('cancel from a second client stops the running cell within a second', async () => {
    const threadId = await newThread('Forever');
    const runId = await startRun(threadId, 'Wait forever');
    const path = `/v1/threads/${threadId}/runs/${runId}/events`;
    const watcher = readEvents(server, path);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const events = await json(await server.fetch(`/v1/threads/${threadId}/events`));
      if ((events.data as Array<{ type: string }>).some((e) => e.type === 'execution-output')) break;
      assert.ok(Date.now() < deadline, 'the cell never started');
      await new Promise((r) => setTimeout(r, 100));
    }
    const asked = Date.now();
    const cancelled = await server.fetch(`/v1/threads/${threadId}/runs/${runId}/cancel`, { method: 'POST' });
    assert.equal(cancelled.status, 200);
    const { events } = await watcher;
    const elapsed = Date.now() - asked;
    assert.ok(elapsed < 1500, `the run ended ${elapsed} ms after the cancel`);
    const end = events.find((e) => e.data.type === 'execution-end')?.data as
      | { result: { status: string } }
      | undefined;
    assert.equal(end?.result.status, 'cancelled');
    assert.equal(events.at(-1)?.data.status, 'cancelled');
  });

  test('bad run requests get clear 400s and 404s', async () => {
    const threadId = await newThread('Bad');
    const post = (body: unknown) =>
      server.fetch(`/v1/threads/${threadId}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const body of [
      {},
      { messages: [] },
      { cell: { code: '' } },
      { messages: [{ role: 'user', content: 'x' }], cell: { code: 'x' } },
    ]) {
      const response = await post(body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(typeof ((await json(response)).error as { message: string }).message, 'string');
    }
    assert.equal((await server.fetch(`/v1/threads/${threadId}/runs/run-${'0'.repeat(24)}`)).status, 404);
    assert.equal((await server.fetch(`/v1/threads/${threadId}/runs/nonsense/events`)).status, 404);
    const patch = await server.fetch(`/v1/threads/${threadId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Renamed' }),
    });
    assert.equal((await json(patch)).title, 'Renamed');
    const found = await json(await server.fetch('/v1/threads?q=renam'));
    assert.deepEqual(
      (found.data as Array<{ id: string }>).map((t) => t.id),
      [threadId],
    );
  });
});
