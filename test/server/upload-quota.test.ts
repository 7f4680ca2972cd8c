import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { healthProbe, idleHealthMs, quantile, streamedUpload } from '../helpers/streamed-upload.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { KEY_A, KEY_B, postJson, TWO_KEYS, upload } from './hostile-helpers.ts';

const MIB = 1024 * 1024;
const LIMIT = 100 * MIB;

/** Uploaded files' bytes in the data dir, and any partial upload left beside them. */
async function filesOnDisk(server: TestServer): Promise<{ bytes: number; partial: string[] }> {
  const dir = join(server.dataDir, 'files');
  let bytes = 0;
  const partial: string[] = [];
  for (const name of await readdir(dir)) {
    if (name.startsWith('.upload-')) partial.push(name);
    else bytes += (await stat(join(dir, name))).size;
  }
  return { bytes, partial };
}

/**
 * Issue 29 §7: the stored-bytes quota is a reservation taken before bytes are written. The
 * red team's attack: 8 uploads of 60 MiB at once under ANALYST_LIMIT_STORED_BYTES = 100 MiB
 * all returned 200 (480 MiB stored). Issue 28 §6: uploads far over the JSON body limit
 * stream to disk on every route, and a refusal names the limit and its variable.
 */
describe('uploads against the stored-bytes quota, streamed', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: {
        ...TWO_KEYS,
        ANALYST_LIMIT_STORED_BYTES: String(LIMIT),
        ANALYST_LIMIT_REQUESTS_PER_MINUTE: '0',
      },
    });
  });
  after(() => server.close());

  test('8 concurrent 60 MiB uploads under a 100 MiB quota: one is stored, 7 get 429, nothing partial', async (t) => {
    const idleMs = await idleHealthMs(server.url);
    const probe = healthProbe(server.url);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        streamedUpload({
          url: server.url,
          path: '/v1/files',
          bytes: 60 * MIB,
          filename: `f${i}.csv`,
          key: KEY_A,
        }),
      ),
    );
    const { latencies, maxLoopDelayMs } = await probe.stop();
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(
      statuses,
      [200, 429, 429, 429, 429, 429, 429, 429],
      JSON.stringify(results.map((r) => r.text)),
    );
    for (const refused of results.filter((r) => r.status === 429)) {
      const error = JSON.parse(refused.text).error as { param: string; message: string };
      assert.equal(error.param, 'stored_bytes');
      assert.match(error.message, /ANALYST_LIMIT_STORED_BYTES/);
    }
    await eventually(async () => (await filesOnDisk(server)).partial.length === 0, 'partial uploads removed');
    assert.equal((await filesOnDisk(server)).bytes, 60 * MIB, 'exactly the one accepted file is stored');
    assert.equal(server.service.deps.limits.heldStoredBytes(KEY_A), 0, 'every hold released');
    const list = (await server.fetch('/v1/files', { key: KEY_A }).then((r) => r.json())) as {
      data: unknown[];
    };
    assert.equal(list.data.length, 1);
    t.diagnostic(
      `/health idle: median ${idleMs.toFixed(1)} ms; during the uploads: ${latencies.length} probes, median ${quantile(latencies, 0.5).toFixed(1)} ms, ` +
        `p90 ${quantile(latencies, 0.9).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; longest main-thread step ${maxLoopDelayMs.toFixed(1)} ms`,
    );
    assert.ok(quantile(latencies, 0.5) - idleMs < 100, `/health median ${quantile(latencies, 0.5)} ms`);
    // The other key's quota is its own.
    const other = await upload(server, '/v1/files', { filename: 'b.csv', content: 'x,y\n1,2\n' }, KEY_B);
    assert.equal(other.status, 200, other.text);
  });

  test('a workspace upload that would pass the quota is refused naming the limit; its hold is released', async () => {
    const thread = await postJson(server, '/v1/threads', {}, KEY_A);
    assert.equal(thread.status, 201, thread.text);
    const id = thread.json().id as string;
    // 60 MiB are stored: 50 more do not fit.
    const refused = await streamedUpload({
      url: server.url,
      path: `/v1/threads/${id}/files`,
      bytes: 50 * MIB,
      key: KEY_A,
    });
    assert.equal(refused.status, 429, refused.text);
    assert.match(JSON.parse(refused.text).error.message, /ANALYST_LIMIT_STORED_BYTES/);
    // A client that hangs up halfway gives its hold back too.
    const hungUp = await streamedUpload({
      url: server.url,
      path: `/v1/threads/${id}/files`,
      bytes: 30 * MIB,
      abortAfterBytes: 10 * MIB,
      key: KEY_A,
    });
    assert.equal(hungUp.status, 0);
    await eventually(
      async () => server.service.deps.limits.heldStoredBytes(KEY_A) === 0,
      'the hung-up upload’s hold released',
    );
    // 30 MiB still fit: the refused and the abandoned uploads hold nothing.
    const stored = await streamedUpload({
      url: server.url,
      path: `/v1/threads/${id}/files`,
      bytes: 30 * MIB,
      filename: 'fits.csv',
      key: KEY_A,
    });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(JSON.parse(stored.text).bytes, 30 * MIB);
    assert.equal((await filesOnDisk(server)).partial.length, 0, 'no staging file left');
  });
});

describe('uploads of real size', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('a 256 MiB upload streams into a workspace without holding it in memory', async (t) => {
    const thread = await postJson(server, '/v1/threads', {});
    const id = thread.json().id as string;
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    const idleMs = await idleHealthMs(server.url);
    const probe = healthProbe(server.url);
    try {
      const result = await streamedUpload({
        url: server.url,
        path: `/v1/threads/${id}/files`,
        bytes: 256 * MIB,
        filename: 'large.csv',
      });
      assert.equal(result.status, 200, result.text);
      assert.equal(JSON.parse(result.text).bytes, 256 * MIB);
    } finally {
      clearInterval(sampler);
    }
    const { latencies, maxLoopDelayMs } = await probe.stop();
    const growth = rssPeak - rssBefore;
    t.diagnostic(
      `256 MiB upload: RSS grew ${(growth / MIB).toFixed(0)} MiB at most; /health idle ${idleMs.toFixed(1)} ms, median ` +
        `${quantile(latencies, 0.5).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; longest main-thread step ${maxLoopDelayMs.toFixed(1)} ms`,
    );
    assert.ok(growth < 96 * MIB, `RSS grew ${growth / MIB} MiB: the upload was held in memory`);
    assert.ok(quantile(latencies, 0.5) - idleMs < 100, `/health median ${quantile(latencies, 0.5)} ms`);
    const files = (await server.fetch(`/v1/threads/${id}/files`).then((r) => r.json())) as {
      data: Array<{ path: string; bytes: number }>;
    };
    assert.deepEqual(
      files.data.filter((f) => f.path === 'large.csv').map((f) => f.bytes),
      [256 * MIB],
    );
  });

  test('the defaults: 4 GiB per upload, and a workspace with room for it', () => {
    assert.equal(server.service.deps.config.maxUploadBytes, 4 * 1024 ** 3);
    assert.ok(server.service.deps.config.workspaceQuota.bytes >= 8 * 1024 ** 3);
  });
});
