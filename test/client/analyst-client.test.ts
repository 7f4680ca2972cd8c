import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AnalystClient, ApiError } from '../../src/client/index.ts';
import type { SequencedEvent } from '../../src/contract/events.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { xlsxOf } from '../web/fixtures.ts';

const KEY = 'key-client-test-aaaaaaaa';
const CSV = 'city,visits\nParis,3\nLyon,5\nParis,4\n';

/** What `promise` rejects with, checked to be an ApiError. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `not an ApiError: ${String(error)}`);
    return error;
  }
  assert.fail('the call did not fail');
}

async function collect(events: AsyncIterable<SequencedEvent>): Promise<SequencedEvent[]> {
  const all: SequencedEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('AnalystClient against a real server (the offline analyst, a key required)', () => {
  let server: TestServer;
  let client: AnalystClient;

  before(async () => {
    server = await startTestServer({ env: { ANALYST_API_KEYS: KEY } });
    client = new AnalystClient({ baseUrl: `${server.url}/v1/`, apiKey: KEY });
  });
  after(() => server.close());

  test('threads: made, found by title, renamed, read with their runs, deleted', async () => {
    const made = await client.createThread({ title: 'Visits by city', metadata: { model: 'offline' } });
    assert.equal(made.object, 'thread');
    assert.deepEqual(made.metadata, { model: 'offline' });
    const found = await client.listThreads({ query: 'visits' });
    assert.deepEqual(
      found.data.map((t) => t.id),
      [made.id],
    );
    const renamed = await client.updateThread(made.id, { title: 'Visits' });
    assert.equal(renamed.title, 'Visits');
    const read = await client.getThread(made.id);
    assert.deepEqual(read.runs, []);
    assert.equal((await client.deleteThread(made.id)).deleted, true);
    const gone = await apiError(client.getThread(made.id));
    assert.equal(gone.status, 404);
    assert.equal(gone.code, 'not_found');
    assert.match(gone.message, /thread/);
  });

  test('files: uploaded into a folder, listed, read back, previewed as a table, deleted', async () => {
    const thread = await client.createThread();
    const progress: number[] = [];
    const uploaded = await client.uploadFile(
      thread.id,
      { name: 'visits.csv', data: new Blob([CSV]), folder: 'data' },
      { onProgress: (fraction) => progress.push(fraction) },
    );
    assert.deepEqual(
      { path: uploaded.path, bytes: uploaded.bytes },
      { path: 'data/visits.csv', bytes: CSV.length },
    );
    assert.deepEqual(progress.at(-1), 1);
    const files = await client.listFiles(thread.id);
    assert.ok(files.data.some((f) => f.path === 'data/visits.csv'));
    assert.equal(new TextDecoder().decode(await client.downloadFile(thread.id, 'data/visits.csv')), CSV);
    const preview = await client.preview(`/v1/threads/${thread.id}/preview/data/visits.csv`, {
      offset: 1,
      limit: 1,
    });
    assert.equal(preview.kind, 'table');
    assert.deepEqual(
      preview.columns.map((c) => c.name),
      ['city', 'visits'],
    );
    assert.deepEqual(preview.rows, [['Lyon', 5]]);
    await client.deleteFile(thread.id, 'data/visits.csv');
    const missing = await apiError(client.downloadFile(thread.id, 'data/visits.csv'));
    assert.equal(missing.status, 404);
  });

  test("a profile of a file's table, and of a named sheet, checked against the contract", async () => {
    const thread = await client.createThread();
    await client.uploadFile(thread.id, { name: 'visits.csv', data: new Blob([CSV]), folder: 'my data' });
    const profile = await client.profile(thread.id, 'my data/visits.csv');
    assert.equal(profile.path, 'my data/visits.csv');
    assert.equal(profile.rows_profiled, 3);
    const [city, visits] = profile.columns;
    // CSV: Paris twice, Lyon once; visits 3, 5, 4.
    assert.deepEqual([city!.distinct, city!.top?.[0]], [2, { value: 'Paris', count: 2 }]);
    assert.deepEqual([visits!.min, visits!.max, visits!.mean], [3, 5, 4]);
    await client.uploadFile(thread.id, {
      name: 'book.xlsx',
      data: new Blob([xlsxOf({ One: [['x'], [1]], Two: [['y'], [7], [9]] }) as BlobPart]),
    });
    const two = await client.profile(thread.id, 'book.xlsx', { sheet: 'Two' });
    assert.deepEqual([two.sheet, two.columns[0]!.name, two.columns[0]!.mean], ['Two', 'y', 8]);
    const missing = await apiError(client.profile(thread.id, 'nothing.csv'));
    assert.equal(missing.status, 404);
  });

  test('an upload aborted before it is sent is cancelled, and the server keeps nothing', async () => {
    const thread = await client.createThread();
    const controller = new AbortController();
    controller.abort();
    const error = await apiError(
      client.uploadFile(
        thread.id,
        { name: 'a.csv', data: new Blob([CSV]) },
        { abortSignal: controller.signal },
      ),
    );
    assert.equal(error.code, 'cancelled');
    assert.deepEqual(
      (await client.listFiles(thread.id)).data.filter((f) => f.path === 'a.csv'),
      [],
    );
  });

  test('a run: started, its events streamed in order to run-end, resumed after a number, stored, exported', async () => {
    const thread = await client.createThread();
    await client.uploadFile(thread.id, { name: 'visits.csv', data: new Blob([CSV]) });
    const models = await client.listModels();
    const model = models.data.find((m) => m.default);
    assert.ok(model, 'a default model');
    const run = await client.startRun(thread.id, {
      messages: [{ role: 'user', content: 'Which city has the most visits?' }],
    });
    assert.equal(run.thread_id, thread.id);
    const events = await collect(client.runEvents(thread.id, run.id));
    assert.equal(events[0]?.type, 'run-start');
    const end = events.at(-1);
    assert.ok(end?.type === 'run-end', `last event: ${end?.type}`);
    assert.equal(end.status, 'completed', end.reason);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
    );
    const rest = await collect(client.runEvents(thread.id, run.id, { after: 2 }));
    assert.deepEqual(rest, events.slice(3));

    assert.equal((await client.getRun(thread.id, run.id)).status, 'completed');
    const stored = await client.getThread(thread.id);
    assert.deepEqual(
      stored.runs.map((r) => r.id),
      [run.id],
    );
    const page = await client.threadEventsPage(thread.id);
    assert.deepEqual(
      page.events.map((e) => e.type),
      events.map((e) => e.type),
    );
    const report = new TextDecoder().decode(await client.report(thread.id, 'md'));
    assert.match(report, /Paris/);
    const notebook = JSON.parse(new TextDecoder().decode(await client.notebook(thread.id))) as {
      nbformat: number;
    };
    assert.equal(notebook.nbformat, 4);
    const cancelled = await client.cancelRun(thread.id, run.id);
    assert.equal(cancelled.status, 'completed', 'cancelling a finished run changes nothing');
  });

  test("the events of an unknown run are a 404 with the server's code", async () => {
    const thread = await client.createThread();
    const error = await apiError(collect(client.runEvents(thread.id, 'run-nope')));
    assert.equal(error.status, 404);
    assert.equal(error.code, 'not_found');
  });

  test("a refused key is a 401 with the server's message; onUnauthorized gives a key and the call is sent again", async () => {
    const refused = await apiError(
      new AnalystClient({ baseUrl: server.url, apiKey: 'wrong-key' }).listModels(),
    );
    assert.equal(refused.status, 401);
    assert.ok(refused.message.length > 0 && !/HTTP 401/.test(refused.message), refused.message);

    let key: string | undefined;
    const asked: Array<string | undefined> = [];
    const prompting = new AnalystClient({
      baseUrl: server.url,
      apiKey: () => key,
      onUnauthorized: async (sent) => {
        asked.push(sent);
        key = asked.length === 1 ? 'still-wrong' : KEY;
        return true;
      },
    });
    const thread = await prompting.createThread({ title: 'asked twice' });
    assert.equal(thread.title, 'asked twice');
    assert.deepEqual(asked, [undefined, 'still-wrong']);
    // The upload path asks the same way.
    key = undefined;
    asked.length = 0;
    const uploaded = await prompting.uploadFile(thread.id, { name: 'v.csv', data: new Blob([CSV]) });
    assert.equal(uploaded.path, 'v.csv');
    assert.equal(asked.length, 2);
  });
});

describe('AnalystClient: answers that are not the API', () => {
  test('no server at the address: status 0, code network', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await apiError(new AnalystClient({ baseUrl: `http://127.0.0.1:${port}` }).listModels());
    assert.equal(error.status, 0);
    assert.equal(error.code, 'network');
  });

  test('a 200 that is not the contract is refused (invalid_response), a plain-text error keeps its text', async () => {
    const answers: Response[] = [
      new Response('<html>hello</html>', { status: 200 }),
      new Response(JSON.stringify({ object: 'list', data: [{ id: 'm' }] }), { status: 200 }),
      new Response('upstream down', { status: 502 }),
    ];
    const client = new AnalystClient({ baseUrl: 'http://analyst.test', fetch: async () => answers.shift()! });
    const html = await apiError(client.listModels());
    assert.equal(html.code, 'invalid_response');
    const partial = await apiError(client.listModels());
    assert.equal(partial.code, 'invalid_response');
    assert.match(partial.message, /data\.0/);
    const plain = await apiError(client.listModels());
    assert.deepEqual([plain.status, plain.code], [502, 'http_502']);
    assert.match(plain.message, /upstream down/);
  });
});
