import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_RESOURCE_BYTES } from '../../src/mcp/resources.ts';
import { healthProbe, idleHealthMs } from '../helpers/streamed-upload.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';
import { httpClient, KEY_A, rawMcpSession } from './helpers.ts';

const MIB = 1024 * 1024;

/**
 * Issue 29 §4: an MCP `resources/read` of a 16 MiB file of \x01 bytes was returned as 100 MB
 * of JSON text framed on the main thread (`/health` blocked 2.4–4.7 s, 22.7 s with 10 at
 * once). A read now serializes at most 512 KiB: bigger files are refused with their
 * URL, and control characters make a file a blob (4/3 of its bytes, not 6×).
 */
describe('MCP resource reads are bounded whatever the file holds', () => {
  let server: TestServer;
  let threadId: string;
  before(async () => {
    server = await startTestServer({ env: { ANALYST_API_KEYS: KEY_A } });
    const thread = await server.fetch('/v1/threads', {
      method: 'POST',
      key: KEY_A,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    threadId = ((await thread.json()) as { id: string }).id;
    for (const [name, bytes] of [
      ['ctl16.txt', 16 * MIB],
      ['ctl256k.txt', MAX_RESOURCE_BYTES],
    ] as const) {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(bytes, 1)]), name);
      const response = await server.fetch(`/v1/threads/${threadId}/files`, {
        method: 'POST',
        body: form,
        key: KEY_A,
      });
      assert.equal(response.status, 200, await response.text());
    }
  });
  after(() => server.close());

  test('16 MiB of \\x01: refused with its download URL', async () => {
    const client = await httpClient(server.url, { key: KEY_A, threadId });
    try {
      await assert.rejects(
        client.readResource({ uri: `analyst://threads/${threadId}/files/ctl16.txt` }),
        (error: Error) => {
          assert.match(error.message, /over the 262144-byte limit of a resource read: download it from/);
          return true;
        },
      );
    } finally {
      await client.close();
    }
  });

  test('256 KiB of \\x01 is a blob of 4/3 its size; ten reads at once leave /health answering', async (t) => {
    // Raw JSON-RPC, bodies kept as bytes until the probe stops: the SDK's client would
    // parse and validate each blob on this same event loop, and that is not the server's time.
    const session = await rawMcpSession(server.url, KEY_A, threadId);
    const idleMs = await idleHealthMs(server.url);
    const uri = `analyst://threads/${threadId}/files/ctl256k.txt`;
    // One at a time: no step of a read holds the main thread (a 16 MiB read held it 2.4–4.7 s).
    const alone = healthProbe(server.url, 10);
    for (let i = 0; i < 3; i += 1) await session.request(i + 10, 'resources/read', { uri });
    const one = await alone.stop();
    // Ten at once: /health is not held for seconds (22.7 s before).
    const probe = healthProbe(server.url);
    const bodies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => session.request(i + 20, 'resources/read', { uri })),
    );
    const { latencies } = await probe.stop();
    for (const body of bodies) assert.ok(body.length < 2 * MAX_RESOURCE_BYTES, `${body.length} bytes framed`);
    const result = session.parse(bodies[0]!) as {
      result: { contents: Array<{ text?: string; blob?: string }> };
    };
    const content = result.result.contents[0]!;
    assert.equal(content.text, undefined, 'control characters are not sent as text');
    const bytes = Buffer.from(content.blob ?? '', 'base64');
    assert.equal(bytes.length, MAX_RESOURCE_BYTES);
    assert.equal(bytes.filter((b) => b !== 1).length, 0);
    t.diagnostic(
      `/health idle: median ${idleMs.toFixed(1)} ms; longest main-thread step of one read ` +
        `${one.maxLoopDelayMs.toFixed(1)} ms; during ten reads at once: ${latencies.length} probes, ` +
        `max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    // Bounds loose enough for a loaded test machine (a read is about 3 ms of CPU on a quiet one).
    assert.ok(one.maxLoopDelayMs < 100, `one read blocked the main thread ${one.maxLoopDelayMs} ms`);
    assert.ok(Math.max(...latencies) - idleMs < 1000, `/health took ${Math.max(...latencies)} ms`);
  });
});
