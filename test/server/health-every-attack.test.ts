import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { assertHealthWithinBound, healthDuring } from '../helpers/health-during.ts';
import { type LoadRequest, type LoadResult, loadFromThread } from '../helpers/load-thread.ts';
import {
  type Attacker,
  type AttackServer,
  type AttackThreads,
  KEYS,
  MiB,
  startAttackServer,
  TREES,
} from './health-attack-setups.ts';
import type { TestServer } from './helpers.ts';
import { rawRequest } from './hostile-helpers.ts';

/**
 * Issue 29 (bounded host work): "`/health` answers in under 100 ms throughout every attack
 * above (a test measures it while each runs)". One server; for each finding, /health is timed
 * idle and then while the finding's attack runs as the red team ran it, and its p95 is held
 * to the bound of health-under-attack.test.ts: max(100 ms, 3 × the idle p95), the machine
 * being shared. What each fix does is tested beside its finding; here only that the attack
 * ran (its answers are the fix's) and what /health did meanwhile. `npm run bench --
 * health-attacks` prints the same figures.
 */

let server: TestServer;
let threads: AttackThreads;
let mcpSession: AttackServer['mcpSession'];
let eventPages: string[];

const auth = (who: Attacker) => ({ authorization: `Bearer ${KEYS[who]}` });
const previewPath = (path: string, query = '') => `/v1/threads/${threads.previews}/preview/${path}${query}`;
/** Sends `requests` from a load thread for `durationMs` as `who`. */
const load = (who: Attacker, requests: LoadRequest[], durationMs: number) =>
  loadFromThread(server.url, requests, durationMs, auth(who));
/** Answers by status, over every kind of request of a load. */
const statusesOf = (results: LoadResult[]) => {
  const all: Record<string, number> = {};
  for (const result of results)
    for (const [status, n] of Object.entries(result.statuses)) all[status] = (all[status] ?? 0) + n;
  return all;
};
const summary = (results: LoadResult[]) => {
  const errors = results
    .filter((result) => Object.keys(result.errors).length > 0)
    .map((result) => result.errors);
  return { statuses: statusesOf(results), ...(errors.length > 0 ? { errors } : {}) };
};

before(async () => {
  ({ server, threads, mcpSession, eventPages } = await startAttackServer());
});
after(async () => {
  // Keep-alive connections of the load threads' hung-up requests would hold the process.
  server.service.app.server.closeAllConnections();
  await server.close();
});

test('/health while two previews of a looping SQLite b-tree run to their time limit', async () => {
  const { result, health } = await healthDuring(
    server.url,
    'looping SQLite b-tree, 2 at once',
    async () => {
      const results = await load('previews', [{ path: previewPath('loop.sqlite'), concurrency: 2 }], 100);
      // The finding was two threads spinning after both answered: the probe goes on a second.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return results;
    },
    { summary },
  );
  assert.deepEqual(statusesOf(result), { 400: 2 });
  assert.match(result[0]!.samples[400]!, /took longer than 15 s to read/);
  assertHealthWithinBound(health);
});

test('/health while a Parquet page bomb is previewed, two at a time', async () => {
  const { result, health } = await healthDuring(
    server.url,
    'Parquet page bomb, 2 at once',
    () => load('previews', [{ path: previewPath('bomb.parquet'), concurrency: 2 }], 3000),
    { summary },
  );
  const statuses = statusesOf(result);
  assert.deepEqual(Object.keys(statuses), ['400'], JSON.stringify(result[0]!.samples));
  assert.ok(statuses[400]! >= 2, `${statuses[400]} previews answered`);
  assert.match(result[0]!.samples[400]!, /needs more than 512 MiB to read|took longer than 15 s/);
  assertHealthWithinBound(health);
});

test('/health while an .xlsx with 900 copies of its shared strings is previewed, two at a time', async () => {
  const { result, health } = await healthDuring(
    server.url,
    'xlsx with duplicate sharedStrings, 2 at once',
    () => load('previews', [{ path: previewPath('dup.xlsx'), concurrency: 2 }], 3000),
    { summary },
  );
  const statuses = statusesOf(result);
  assert.deepEqual(Object.keys(statuses), ['400'], JSON.stringify(result[0]!.samples));
  assert.ok(statuses[400]! >= 2, `${statuses[400]} previews answered`);
  assertHealthWithinBound(health);
});

test('/health while 10 sparse 1 GiB CSVs are previewed deep and their clients hang up', async () => {
  const requests = Array.from({ length: 10 }, (_, i) => ({
    // A deep page of a big file needs a scan of the whole file: the expensive request.
    path: previewPath(`sparse-${i}.csv`, '?offset=5000000'),
    concurrency: 1,
    abortAfterMs: 1000,
  }));
  const { result, health } = await healthDuring(
    server.url,
    '10 sparse 1 GiB CSVs, hung up after 1 s',
    () => load('previews', requests, 4000),
    { summary },
  );
  const statuses = statusesOf(result);
  // A scan that ends before its client leaves is kept as the file's row index: later pages answer.
  assert.deepEqual(
    Object.keys(statuses).filter((status) => status !== 'hung-up' && status !== '200'),
    [],
    JSON.stringify(result.map((r) => r.samples)),
  );
  assert.ok((statuses['hung-up'] ?? 0) >= 10, `${statuses['hung-up']} clients hung up mid-scan`);
  assertHealthWithinBound(health);
});

test('/health while MCP resources/read of a 16 MiB file of \\x01 bytes is asked 10 at once', async () => {
  const uri = `analyst://threads/${threads.mcp}/files/ctl16.txt`;
  const read: LoadRequest = {
    path: mcpSession.endpoint.slice(server.url.length),
    concurrency: 10,
    method: 'POST',
    headers: mcpSession.headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: '{n}', method: 'resources/read', params: { uri } }),
  };
  const { result, health } = await healthDuring(
    server.url,
    'MCP resources/read of 16 MiB, 10 at once',
    () => load('mcp', [read], 3000),
    { summary },
  );
  const [reads] = result;
  assert.deepEqual(Object.keys(reads!.statuses), ['200'], JSON.stringify(reads!.samples));
  assert.ok(reads!.answers >= 10, `${reads!.answers} reads answered`);
  assert.match(reads!.samples[200]!, /over the 262144-byte limit of a resource read/);
  assert.ok(
    reads!.bodyBytes.every((bytes) => bytes < 4096),
    'every read was refused, none framed the file',
  );
  assertHealthWithinBound(health);
});

test('/health while a client pages through the events of a thread with many big events', async () => {
  const { result, health } = await healthDuring(
    server.url,
    `events of 8 MB in ${eventPages.length} pages, one client paging`,
    () => load('events', [{ path: eventPages[0]!, paths: eventPages, concurrency: 1 }], 3000),
    { summary },
  );
  const [pages] = result;
  assert.deepEqual(Object.keys(pages!.statuses), ['200'], JSON.stringify(pages!.samples));
  assert.ok(pages!.answers >= eventPages.length, `${pages!.answers} of ${eventPages.length} pages read`);
  assertHealthWithinBound(health);
});

test('/health while PDF reports are asked and abandoned after a moment, from two keys', async () => {
  const pool = server.service.deps.reports.pool;
  const report = (thread: string, key: string): LoadRequest => ({
    path: `/v1/threads/${thread}/report?format=pdf`,
    concurrency: 4,
    headers: { authorization: `Bearer ${key}` },
    abortAfterMs: 1000,
  });
  let mostRunning = 0;
  const { result, health } = await healthDuring(
    server.url,
    'PDF reports abandoned after 1 s, 4 per key from 2 keys',
    async () => {
      const watch = setInterval(() => {
        mostRunning = Math.max(mostRunning, pool.counts().running);
      }, 50);
      try {
        return await load(
          'reportsA',
          [report(threads.reportsA, KEYS.reportsA), report(threads.reportsB, KEYS.reportsB)],
          4000,
        );
      } finally {
        clearInterval(watch);
      }
    },
    { summary },
  );
  const statuses = statusesOf(result);
  assert.deepEqual(
    Object.keys(statuses).filter((status) => status !== 'hung-up' && status !== '200'),
    [],
    JSON.stringify(result.map((r) => r.samples)),
  );
  assert.ok((statuses['hung-up'] ?? 0) >= 8, `${statuses['hung-up']} reports abandoned`);
  assert.ok(mostRunning >= 1, 'no report was ever printing: the attack did not run');
  assertHealthWithinBound(health);
  // The next attack is measured on a server that is done printing.
  await eventually(() => pool.counts().running === 0 && pool.counts().waiting === 0, 'the report pool idle');
});

test('/health while 8 uploads of 60 MiB at once go over a 100 MiB stored-bytes quota', async () => {
  const { result, health } = await healthDuring(
    server.url,
    '60 MiB uploads over a 100 MiB quota, 8 at once',
    () => load('uploads', [{ path: '/v1/files', concurrency: 8, uploadBytes: 60 * MiB }], 3000),
    { summary },
  );
  const [uploads] = result;
  // One fits the quota; every other is refused, in the first round and every later one. The
  // server closes a refused upload's connection while its client still writes: the client may
  // see the reset before it reads the 429.
  assert.deepEqual(
    Object.keys(uploads!.statuses).filter((status) => !['200', '429', 'error'].includes(status)),
    [],
    JSON.stringify(uploads!.samples),
  );
  assert.deepEqual(
    Object.keys(uploads!.errors).filter((code) => code !== 'ECONNRESET' && code !== 'EPIPE'),
    [],
    JSON.stringify(uploads!.errors),
  );
  assert.equal(uploads!.statuses[200], 1);
  assert.ok(uploads!.statuses[429]! >= 7, `${uploads!.statuses[429]} uploads refused`);
  assert.match(uploads!.samples[429]!, /ANALYST_LIMIT_STORED_BYTES/);
  assertHealthWithinBound(health);
});

test('/health while exports of 50 sparse 1 GiB files are asked (and refused), two at a time', async () => {
  const { result, health } = await healthDuring(
    server.url,
    'exports of 50 sparse 1 GiB files, 2 at once',
    () =>
      load('exports', [{ path: `/v1/threads/${threads.exports}/export?format=zip`, concurrency: 2 }], 3000),
    { summary },
  );
  const [exports] = result;
  assert.deepEqual(Object.keys(exports!.statuses), ['409'], JSON.stringify(exports!.samples));
  assert.ok(exports!.answers >= 2, `${exports!.answers} exports answered`);
  assert.match(exports!.samples[409]!, /"code":"export_too_sparse"/);
  assertHealthWithinBound(health);
});

test(`/health while ${TREES} trees 1,100 levels deep are deleted at once`, async () => {
  const { result, health } = await healthDuring(
    server.url,
    `DELETE of ${TREES} trees 1,100 levels deep, all at once`,
    () =>
      Promise.all(
        Array.from({ length: TREES }, (_, t) =>
          rawRequest(server, {
            method: 'DELETE',
            path: `/v1/threads/${threads.trees}/files/deep${t}`,
            key: KEYS.trees,
          }),
        ),
      ),
    { summary: (answers) => ({ statuses: answers.map((answer) => answer.status) }) },
  );
  for (const answer of result) assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assertHealthWithinBound(health);
});
