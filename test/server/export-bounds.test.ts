import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { eventually } from '../helpers/eventually.ts';
import { expectError, json, startTestServer, type TestServer } from './helpers.ts';

/**
 * Issue 29's finding 9 (the export half) and its pools: an export reads what the workspace's
 * files occupy, not what sparse files claim, and exports go through a fair pool that a
 * client's hang-up leaves at once. Against a real server and real loop-mounted workspaces.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('workspace exports are bounded by what the workspace holds', () => {
  let server: TestServer;

  const newThread = async () => {
    const created = await json(
      await server.fetch('/v1/threads', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    const id = created.id as string;
    const { threads } = server.service.deps;
    const root = (await threads.workspace(await threads.get('local', id))).mount().path;
    return { id, root };
  };
  /** A file written straight into the workspace's filesystem, as a cell would (sparse when asked). */
  const place = async (root: string, name: string, head: Uint8Array | string, apparentBytes?: number) => {
    const parts = name.split('/');
    if (parts.length > 1) await mkdir(join(root, ...parts.slice(0, -1)), { recursive: true });
    const handle = await open(join(root, name), 'w');
    try {
      await handle.write(typeof head === 'string' ? Buffer.from(head) : head);
      if (apparentBytes !== undefined) await handle.truncate(apparentBytes);
    } finally {
      await handle.close();
    }
  };

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    // Keep-alive connections the aborted fetches' pool left idle would hold the process for
    // the server's keep-alive time (72 s) after the tests.
    server.service.app.server.closeAllConnections();
    await server.close();
  });

  test('50 sparse 1 GiB files are refused before a byte is read, naming them', async () => {
    // Found: the server deflated 2.7 GiB of holes in 20 s (20 CPU-s) for a 2.7 MB download.
    const { id, root } = await newThread();
    for (let i = 0; i < 50; i++) await place(root, `holes/h${String(i).padStart(2, '0')}.bin`, 'x', GiB);
    await place(root, 'notes.txt', 'kept\n');
    const exports = server.service.deps.exports;
    const readBefore = exports.bytesRead;
    const cpuBefore = process.cpuUsage();
    const response = await server.fetch(`/v1/threads/${id}/export?format=zip`);
    const error = await expectError(response, 409);
    const cpu = process.cpuUsage(cpuBefore);
    assert.equal(error.code, 'export_too_sparse');
    assert.match(error.message, /claim 50\.0 GiB more than they occupy/);
    assert.match(error.message, /holes\/h\d\d\.bin/);
    assert.match(error.message, /and 47 more/);
    assert.equal(exports.bytesRead - readBefore, 0, 'no byte of a file was read');
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    assert.ok(cpuSeconds < 5, `the refusal cost ${cpuSeconds.toFixed(2)} CPU-s`);
    assert.deepEqual(exports.counts().running, 0);
  });

  test('sparse files within the allowance export whole, stored rather than deflated', async () => {
    const { id, root } = await newThread();
    await place(root, 'a.bin', 'head-a', 8 * MiB);
    await place(root, 'b.bin', 'head-b', 8 * MiB);
    const text = 'region,amount\n'.repeat(10_000);
    await place(root, 'data/table.csv', text);
    const exports = server.service.deps.exports;
    const readBefore = exports.bytesRead;
    const response = await server.fetch(`/v1/threads/${id}/export`);
    assert.equal(response.status, 200);
    const body = new Uint8Array(await response.arrayBuffer());
    const files = unzipSync(body);
    assert.deepEqual(Object.keys(files).sort(), ['a.bin', 'b.bin', 'data/table.csv']);
    assert.equal(files['a.bin']!.length, 8 * MiB);
    assert.equal(Buffer.from(files['a.bin']!.subarray(0, 6)).toString(), 'head-a');
    assert.ok(files['b.bin']!.subarray(6).every((byte) => byte === 0));
    assert.equal(new TextDecoder().decode(files['data/table.csv']), text);
    // The holes went out as they are (16 MiB), the CSV deflated (140 KB to a few hundred bytes).
    assert.ok(body.length > 16 * MiB && body.length < 16 * MiB + 64 * 1024, `${body.length} bytes`);
    assert.equal(exports.bytesRead - readBefore, 16 * MiB + text.length);
  });

  test('ten exports whose client hung up stop reading within two seconds, queued ones too', async () => {
    const { id, root } = await newThread();
    // Random bytes deflate slowly: each export takes seconds, longer than the test waits.
    for (let i = 0; i < 4; i++) await place(root, `r${i}.bin.txt`, randomBytes(24 * MiB));
    const exports = server.service.deps.exports;
    const readBefore = exports.bytesRead;
    const clients = Array.from({ length: 10 }, () => new AbortController());
    const started = clients.map((client) =>
      server
        .fetch(`/v1/threads/${id}/export`, { signal: client.signal })
        .then(async (response) => {
          // Take a first chunk so the export is under way, then keep the body unread.
          const reader = response.body!.getReader();
          await reader.read();
          return 'streaming';
        })
        .catch(() => 'hung up'),
    );
    await eventually(
      () => exports.counts().running === 2 && exports.counts().waiting === 8,
      'two exports running and eight waiting',
      30_000,
    );
    await eventually(() => exports.bytesRead > readBefore, 'the running exports reading', 30_000, 20);
    for (const client of clients) client.abort();
    await Promise.all(started);
    await eventually(
      () => exports.counts().running === 0 && exports.counts().waiting === 0,
      'the export pool empty',
      2000,
      20,
    );
    const read = exports.bytesRead;
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(exports.bytesRead, read, 'no byte read after the pool emptied');
    assert.ok(
      read - readBefore < 2 * 4 * 24 * MiB,
      `${read - readBefore} bytes read: the exports were not stopped`,
    );
    assert.ok(exports.counts().mostAtOnce <= 2);
    // The server still exports for the next client.
    const small = await newThread();
    await place(small.root, 'x.txt', 'x');
    const response = await server.fetch(`/v1/threads/${small.id}/export`);
    assert.deepEqual(Object.keys(unzipSync(new Uint8Array(await response.arrayBuffer()))), ['x.txt']);
  });
});
