import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import {
  ANALYSIS_SCRIPT,
  call,
  httpClient,
  KEY_A,
  KEY_B,
  SALES_CSV,
  stdioClient,
  textOf,
} from './helpers.ts';
import { analysisScenario, toolScenario } from './scenarios.ts';

/** A thread of `key` with sales.csv in its workspace. */
async function threadWithSales(server: TestServer, key: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([SALES_CSV]), 'sales.csv');
  const file = (await (await server.fetch('/v1/files', { method: 'POST', body: form, key })).json()) as {
    id: string;
  };
  const response = await server.fetch('/v1/threads', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_ids: [file.id] }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** The SDK client's error for an HTTP status, with OpenAI's error shape in its message. */
function httpStatus(status: number, message: RegExp) {
  return (error: Error & { code?: number }) => {
    assert.equal(error.code, status, error.message);
    assert.match(error.message, message);
    return true;
  };
}

describe('MCP on analyst serve: Streamable HTTP at /mcp, and analyst mcp --url relaying stdio to it', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      script: ANALYSIS_SCRIPT,
      env: { ANALYST_API_KEYS: `${KEY_A},${KEY_B}` },
    });
  });
  after(async () => {
    await server?.close();
  });

  test('over HTTP: tools, query then python_exec on data, refusal, timeout', async () => {
    const thread = await threadWithSales(server, KEY_A);
    const client = await httpClient(server.url, { key: KEY_A, threadId: thread });
    try {
      await toolScenario(client);
    } finally {
      await client.close();
    }
  });

  test('over HTTP: run_analysis with the scripted model, with progress, files and report as resources', async () => {
    const thread = await threadWithSales(server, KEY_A);
    const client = await httpClient(server.url, { key: KEY_A, threadId: thread });
    try {
      await analysisScenario(client);
    } finally {
      await client.close();
    }
    // It was a run like any other: stored on the thread.
    const runs = (await (await server.fetch(`/v1/threads/${thread}/runs`, { key: KEY_A })).json()) as {
      data: Array<{ status: string; model: string }>;
    };
    assert.deepEqual(
      runs.data.map((r) => [r.status, r.model]),
      [['completed', 'scripted']],
    );
  });

  test('over stdio (analyst mcp --url --thread --api-key): the same tools and analysis', async () => {
    const thread = await threadWithSales(server, KEY_A);
    const { client } = await stdioClient(['--url', server.url, '--thread', thread, '--api-key', KEY_A]);
    try {
      await toolScenario(client);
      await analysisScenario(client);
    } finally {
      await client.close();
    }
  });

  test('a session without a thread gets a new thread of its own, owned by the key', async () => {
    const client = await httpClient(server.url, { key: KEY_B });
    try {
      const files = await call(client, 'list_files');
      const threadId = (files.structuredContent as { thread_id: string }).thread_id;
      assert.match(textOf(files), /The workspace is empty/);
      assert.equal((await server.fetch(`/v1/threads/${threadId}`, { key: KEY_B })).status, 200);
      assert.equal((await server.fetch(`/v1/threads/${threadId}`, { key: KEY_A })).status, 404);
    } finally {
      await client.close();
    }
  });

  test('a wrong key or no key is refused, over HTTP and over stdio', async () => {
    await assert.rejects(
      httpClient(server.url, { key: 'not-a-valid-key-at-all' }),
      httpStatus(401, /not valid/),
    );
    await assert.rejects(httpClient(server.url), httpStatus(401, /API key is required/));
    const thread = await threadWithSales(server, KEY_A);
    const { client, stderr } = await stdioClient([
      '--url',
      server.url,
      '--thread',
      thread,
      '--api-key',
      'not-a-valid-key-at-all',
    ]).catch((error: Error) => ({ client: undefined, stderr: () => error.message }));
    await client?.close();
    assert.equal(client, undefined, 'the stdio server does not start with a refused key');
    assert.match(stderr(), /refused the API key|Connection closed/);
  });

  test("another key's thread is as unknown as a missing one, and so is another key's session", async () => {
    const thread = await threadWithSales(server, KEY_A);
    await assert.rejects(
      httpClient(server.url, { key: KEY_B, threadId: thread }),
      httpStatus(404, /no thread/),
    );
    const { client } = await stdioClient(['--url', server.url, '--thread', thread, '--api-key', KEY_B]).catch(
      () => ({ client: undefined }),
    );
    await client?.close();
    assert.equal(client, undefined);

    // A session id taken from key A's session does not work with key B.
    const own = await httpClient(server.url, { key: KEY_A, threadId: thread });
    try {
      const sessionId = (own.transport as unknown as { sessionId: string }).sessionId;
      const response = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY_B}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_files' } }),
      });
      assert.equal(response.status, 404);
      const body = (await response.json()) as { error: { message: string } };
      assert.match(body.error.message, /no such MCP session/);
    } finally {
      await own.close();
    }
  });
});
