import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { KEY_A, KEY_B, offlineThread, rawRequest, TWO_KEYS } from './hostile-helpers.ts';

/** Chromium browsers this process started (the server runs in it): their main processes. */
async function browsers(): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command (which may hold spaces): state, ppid, ...
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[1]) !== process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('--print-to-pdf')) count++;
  }
  return count;
}

/** A request that hangs up after `ms`, before its answer. */
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
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('close', () => resolve());
    });
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let server: TestServer;
let threadA: string;
let threadB: string;

before(async () => {
  server = await startTestServer({ env: TWO_KEYS });
  threadA = await offlineThread(server, KEY_A);
  threadB = await offlineThread(server, KEY_B);
});
after(() => server.close());

// Measured before the pool: 8 requests abandoned after 3 s ran 8 Chromium browsers (84 processes).
test('abandoned PDF requests run at most the pool of browsers, and all of them stop', async () => {
  const pool = server.service.deps.reports.pool;
  const size = 2;
  let most = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      most = Math.max(most, await browsers());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.all(
    Array.from({ length: 8 }, () => abandon(server, `/v1/threads/${threadA}/report?format=pdf`, KEY_A, 1500)),
  );
  // Every client left: the queue empties and the browsers printing for them are killed.
  await eventually(async () => pool.counts().running === 0 && pool.counts().waiting === 0, 'the pool idle');
  await eventually(async () => (await browsers()) === 0, 'no browser left');
  watching = false;
  await watch;
  assert.ok(most >= 1, 'no browser was ever seen: the test watched nothing');
  assert.ok(most <= size, `${most} browsers at once, the pool has ${size} slots`);
  assert.ok(pool.counts().mostAtOnce <= size);
});

// Measured before: key B's report went from 1.0 s to 33-53 s behind key A's ten (one FIFO).
test("one key's ten PDF reports delay another key's by at most one job", async () => {
  const done: string[] = [];
  const ask = (thread: string, key: string, name: string) =>
    rawRequest(server, { path: `/v1/threads/${thread}/report?format=pdf`, key }).then((response) => {
      assert.equal(response.status, 200, response.text.slice(0, 300));
      assert.equal(response.body.subarray(0, 5).toString('latin1'), '%PDF-');
      done.push(name);
    });
  const fromA = Array.from({ length: 10 }, (_, n) => ask(threadA, KEY_A, `a${n}`));
  // B asks once A's ten are all in the queue or running.
  const pool = server.service.deps.reports.pool;
  await eventually(async () => pool.counts().running + pool.counts().waiting >= 10, "A's ten queued");
  const fromB = ask(threadB, KEY_B, 'b');
  await fromB;
  const aBeforeB = done.indexOf('b');
  // Two running when B came, one more of A's had the turn; at most one of those may finish beside B's.
  assert.ok(aBeforeB <= 4, `${aBeforeB} of A's reports were done before B's: ${done.join(' ')}`);
  await Promise.all(fromA);
  assert.equal(done.length, 11);
});
