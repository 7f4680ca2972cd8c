import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, readlink } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LABELS } from '../src/sandbox/docker/labels.ts';
import { ownerOf } from '../src/server/auth.ts';
import { probeHealth, quantile } from '../test/helpers/health-prober.ts';
import { loadFromThread } from '../test/helpers/load-thread.ts';
import { docker } from '../test/helpers/sandbox.ts';
import { startTestServer, type TestServer } from '../test/server/helpers.ts';
import { KEY_A, KEY_B, TWO_KEYS } from '../test/server/hostile-helpers.ts';
import { loopingSqlite, parquetBomb } from '../test/server/hostile-preview-files.ts';
import { round } from './stats.ts';

/**
 * `npm run bench -- soak-attacks [seconds]` (and the second half of `soak`): issue 29's soak.
 * For a few minutes (default 180 s) key A attacks in rounds — previews whose answers are
 * 24 MB of JSON, a Parquet bomb, a SQLite file whose b-tree loops, exports of 32 MiB, a
 * workspace of 50 sparse 1 GiB files (refused), ten exports abandoned at once — while key B
 * runs one normal analysis a round, which must come back with the right answer. `/health` is
 * probed from a thread of its own all along. Prints one JSON line: rounds, key B's runs and
 * their times, /health p50/p95/max, the server's RSS before and after, and what was left
 * (preview processes, open descriptors, scratch files, containers); exits 1 on anything lost
 * or left behind.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const script = {
  mode: 'match' as const,
  turns: [
    { when: { last_role: 'execute' }, content: '<Answer>The product is in the output above.</Answer>' },
    {
      when: { last_contains: 'multiply' },
      content: '<Analyze>Multiply.</Analyze>\n<Code>\nprint(6 * 7)\n</Code>',
    },
  ],
};

async function post(server: TestServer, path: string, body: unknown, key: string): Promise<Response> {
  return server.fetch(path, {
    method: 'POST',
    key,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

async function newThread(server: TestServer, key: string): Promise<{ id: string; root: string }> {
  const response = await post(server, '/v1/threads', {}, key);
  assert.ok(response.ok, `a new thread: HTTP ${response.status}`);
  const id = ((await response.json()) as { id: string }).id;
  const { threads, config } = server.service.deps;
  const owner = ownerOf(`Bearer ${key}`, config.keys);
  return { id, root: (await threads.workspace(await threads.get(owner, id))).mount().path };
}

async function place(root: string, name: string, data: Uint8Array, apparentBytes?: number): Promise<void> {
  const handle = await open(join(root, name), 'w');
  try {
    await handle.write(data);
    if (apparentBytes !== undefined) await handle.truncate(apparentBytes);
  } finally {
    await handle.close();
  }
}

/** Requests that hang up after `ms`, before or during their answer. */
function abandon(server: TestServer, path: string, key: string, ms: number): Promise<void> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path,
      headers: { authorization: `Bearer ${key}` },
      agent: false,
    });
    req.on('error', () => resolve());
    req.on('response', (res) => res.resume());
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

/** Child processes of this process whose command line contains `word`. */
async function children(word: string): Promise<number> {
  let count = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    if ((await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).includes(word)) count++;
  }
  return count;
}

const openDescriptors = async () => (await readdir('/proc/self/fd')).length;

/** What this process's open descriptors are (a socket, a pipe, a path), counted by kind. */
async function descriptorKinds(): Promise<Record<string, number>> {
  const kinds: Record<string, number> = {};
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => 'gone');
    const kind = target.replace(/\[\d+\]$/, '').replace(/\/[^/]*$/, '/…');
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

/** This process's threads, counted by name (`/proc/self/task/N/comm`). */
async function threadNames(): Promise<Record<string, number>> {
  const names: Record<string, number> = {};
  for (const task of await readdir('/proc/self/task')) {
    const name = (await readFile(`/proc/self/task/${task}/comm`, 'utf8').catch(() => 'gone')).trim();
    names[name] = (names[name] ?? 0) + 1;
  }
  return names;
}

/** What `after` holds beyond `before`, by key. */
function gainedOf(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const gained: Record<string, number> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const n = (after[key] ?? 0) - (before[key] ?? 0);
    if (n !== 0) gained[key] = n;
  }
  return gained;
}

/** Key B's normal analysis: the cell's real output (42) must be in the transcript. */
async function normalRun(server: TestServer): Promise<number> {
  const started = performance.now();
  const response = await post(
    server,
    '/v1/chat/completions',
    { model: 'scripted', messages: [{ role: 'user', content: 'multiply six by seven' }] },
    KEY_B,
  );
  const text = await response.text();
  assert.equal(response.status, 200, text.slice(0, 500));
  const content = (JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]!
    .message.content;
  assert.match(
    content,
    /<Execute>\s*(```)?\s*42\s*(```)?\s*<\/Execute>/,
    `key B's run lost its answer: ${content.slice(0, 500)}`,
  );
  return performance.now() - started;
}

/** A full collection, so memory figures compare what is live, not what awaits the collector. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export interface AttackSoakResult {
  rounds: number;
  runs: number;
  runMs: number[];
  health: { p50: number; p95: number; max: number; answers: number };
  rssBeforeMiB: number;
  rssAfterMiB: number;
  /** Once the idle archive threads have ended. */
  rssSettledMiB: number;
  heapAndBuffersBeforeMiB: number;
  heapAndBuffersAfterMiB: number;
  /** What V8 keeps committed for the main thread's heap (RSS counts it, used or not). */
  heapTotalBeforeMiB: number;
  heapTotalAfterMiB: number;
  descriptorsBefore: number;
  descriptorsAfter: number;
  descriptorsSettled: number;
  descriptorsGained: Record<string, number>;
  threadsGained: Record<string, number>;
  exportsRefused: number;
  exportsMade: number;
  previewsMade: number;
  previewsRefused: number;
}

export async function attackSoak(durationMs: number): Promise<AttackSoakResult> {
  const server = await startTestServer({ env: TWO_KEYS, script });
  const instance = (server.service.deps.sandbox as unknown as { instanceId?: string }).instanceId;
  let closed = false;
  try {
    const big = await newThread(server, KEY_A);
    await place(big.root, 'ctrl.txt', Buffer.from(`${'\x01'.repeat(4000)}\n`.repeat(1000)));
    await place(big.root, 'a.bin.txt', randomBytes(16 * MiB));
    await place(big.root, 'b.bin.txt', randomBytes(16 * MiB));
    await place(big.root, 'bomb.parquet', parquetBomb());
    await place(big.root, 'loop.sqlite', await loopingSqlite());
    const sparse = await newThread(server, KEY_A);
    for (let i = 0; i < 50; i++) await place(sparse.root, `h${i}.bin`, Buffer.from('x'), GiB);
    // Warm: the preview launcher, key B's session, one round of each request.
    await normalRun(server);
    await loadFromThread(
      server.url,
      [
        { path: `/v1/threads/${big.id}/preview/ctrl.txt?limit=1000`, concurrency: 1 },
        { path: `/v1/threads/${big.id}/export`, concurrency: 1 },
      ],
      0,
      { authorization: `Bearer ${KEY_A}` },
    );
    collectGarbage();
    const rssBefore = process.memoryUsage().rss;
    const memoryBefore = process.memoryUsage();
    const descriptorsBefore = await openDescriptors();
    const kindsBefore = await descriptorKinds();
    const threadsBefore = await threadNames();

    const probe = await probeHealth(server.url);
    const until = Date.now() + durationMs;
    const result = {
      rounds: 0,
      runMs: [] as number[],
      exportsRefused: 0,
      exportsMade: 0,
      previewsMade: 0,
      previewsRefused: 0,
    };
    const headers = { authorization: `Bearer ${KEY_A}` };
    while (Date.now() < until) {
      const base = `/v1/threads/${big.id}`;
      const [load, run] = await Promise.all([
        loadFromThread(
          server.url,
          [
            { path: `${base}/preview/ctrl.txt?limit=1000`, concurrency: 2 },
            { path: `${base}/preview/bomb.parquet`, concurrency: 1 },
            { path: `${base}/preview/loop.sqlite`, concurrency: 1 },
            { path: `${base}/export`, concurrency: 2 },
            { path: `/v1/threads/${sparse.id}/export`, concurrency: 1 },
          ],
          10_000,
          headers,
        ),
        normalRun(server),
        Promise.all(Array.from({ length: 10 }, () => abandon(server, `${base}/export`, KEY_A, 1500))),
      ]);
      result.runMs.push(run);
      const [text, bomb, loop, zip, holes] = load;
      // On a loaded machine a 24 MB preview may reach its time limit (400): refused, not failed.
      assert.equal(
        (text!.statuses[200] ?? 0) + (text!.statuses[400] ?? 0),
        text!.answers,
        'the 24 MB previews',
      );
      assert.deepEqual(bomb!.statuses, { 400: bomb!.answers }, 'the Parquet bomb is refused');
      assert.deepEqual(loop!.statuses, { 400: loop!.answers }, 'the looping SQLite file is refused');
      assert.deepEqual(zip!.statuses, { 200: zip!.answers }, 'the exports');
      assert.deepEqual(holes!.statuses, { 409: holes!.answers }, 'the sparse workspace is refused');
      result.previewsMade += text!.statuses[200] ?? 0;
      result.previewsRefused += bomb!.answers + loop!.answers + (text!.statuses[400] ?? 0);
      result.exportsMade += zip!.answers;
      result.exportsRefused += holes!.answers;
      result.rounds++;
    }
    const health = await probe.stop();

    // Settled: no export or preview running, the pool empty, only the spare preview process.
    const exports = server.service.deps.exports;
    const settleBy = Date.now() + 20_000;
    while (exports.counts().running + exports.counts().waiting > 0 || (await children('preview-child')) > 1) {
      assert.ok(Date.now() < settleBy, 'exports and previews stop within 20 s of their clients');
      await new Promise((r) => setTimeout(r, 200));
    }
    collectGarbage();
    await new Promise((r) => setTimeout(r, 2000));
    collectGarbage();
    const rssAfter = process.memoryUsage().rss;
    const memoryAfter = process.memoryUsage();
    const descriptorsAfter = await openDescriptors();
    const scratch = await readdir(join(server.dataDir, 'preview-scratch')).catch(() => [] as string[]);
    assert.deepEqual(scratch, [], 'no preview scratch directory is left');
    assert.ok(
      // Thread pools that grow to their size (worker loops, their pipes) are not leaks; one
      // descriptor per abandoned export or preview would pass this within a few rounds.
      descriptorsAfter <= descriptorsBefore + 64,
      `open descriptors ${descriptorsBefore} before, ${descriptorsAfter} after: ${JSON.stringify(kindsBefore)} → ${JSON.stringify(await descriptorKinds())}`,
    );
    // The JS heap and buffers must come back.
    const held = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
    assert.ok(
      held(memoryAfter) <= held(memoryBefore) + 64 * MiB,
      `heap and buffers ${round(held(memoryBefore) / MiB)} MiB before, ${round(held(memoryAfter) / MiB)} MiB after`,
    );
    // Settled again once the idle archive threads have ended (their isolates are memory the
    // rounds took and give back after `threadIdleExitMs`).
    const idleBy = Date.now() + 45_000;
    while (exports.threadCounts().alive > 0 && Date.now() < idleBy)
      await new Promise((r) => setTimeout(r, 500));
    collectGarbage();
    await new Promise((r) => setTimeout(r, 2000));
    const rssSettled = process.memoryUsage().rss;
    const descriptorsSettled = await openDescriptors();
    const kindsSettled = await descriptorKinds();
    // What the settled server holds beyond its baseline: descriptors by kind (sockets, pipes,
    // paths), threads by name.
    const descriptorsGained = gainedOf(kindsBefore, kindsSettled);
    const threadsGained = gainedOf(threadsBefore, await threadNames());
    // RSS is reported, not asserted (docs/performance.md, issue 29 soak).
    server.service.app.server.closeAllConnections();
    await server.close();
    closed = true;
    const left = await docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.instance}=${instance}`] },
    });
    assert.deepEqual(
      left.map((c) => c.Names[0]),
      [],
      'no container of the server is left',
    );
    assert.equal(await children('preview-child'), 0, 'no preview process is left');
    return {
      ...result,
      runs: result.runMs.length,
      health: {
        p50: round(quantile(health, 0.5)),
        p95: round(quantile(health, 0.95)),
        max: round(Math.max(...health)),
        answers: health.length,
      },
      rssBeforeMiB: round(rssBefore / MiB),
      rssAfterMiB: round(rssAfter / MiB),
      rssSettledMiB: round(rssSettled / MiB),
      heapAndBuffersBeforeMiB: round((memoryBefore.heapUsed + memoryBefore.external) / MiB),
      heapAndBuffersAfterMiB: round((memoryAfter.heapUsed + memoryAfter.external) / MiB),
      heapTotalBeforeMiB: round(memoryBefore.heapTotal / MiB),
      heapTotalAfterMiB: round(memoryAfter.heapTotal / MiB),
      descriptorsBefore,
      descriptorsAfter,
      descriptorsSettled,
      descriptorsGained,
      threadsGained,
    };
  } finally {
    if (!closed) {
      server.service.app.server.closeAllConnections();
      await server.close();
    }
  }
}

export async function runAttackSoakBench(): Promise<void> {
  const seconds = Number(process.argv[3] ?? 180);
  const started = Date.now();
  const { runMs, ...result } = await attackSoak(seconds * 1000);
  process.stdout.write(
    `${JSON.stringify({
      name: 'soak_attacks',
      seconds: round((Date.now() - started) / 1000),
      ...result,
      run_ms: { p50: round(quantile(runMs, 0.5)), max: round(Math.max(...runMs)) },
      lost: 0,
      left_behind: 0,
      // `npm start` preloads jemalloc (scripts/start.sh); RSS after the soak depends on it.
      allocator: (await readFile('/proc/self/maps', 'utf8')).includes('libjemalloc') ? 'jemalloc' : 'glibc',
    })}\n`,
  );
}
