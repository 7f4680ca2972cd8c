import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, json, startTestServer, type TestServer } from './helpers.ts';

/**
 * The server's total cap on session containers (ANALYST_MAX_SESSIONS, issue 14 §3): beyond it
 * with every sandbox running a cell, a thread's exec waits briefly and then gets 503 with
 * Retry-After and OpenAI's error shape — never an engine error — and works once room is made.
 */
describe('session caps over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ANALYST_MAX_SESSIONS: '1' } });
  });
  after(async () => {
    await server.close();
  });

  const newThread = async () =>
    (await json(await server.fetch('/v1/threads', { method: 'POST', body: '{}', headers: jsonType })))
      .id as string;
  const jsonType = { 'content-type': 'application/json' };
  const exec = (thread: string, code: string) =>
    server.fetch(`/v1/threads/${thread}/exec`, {
      method: 'POST',
      headers: jsonType,
      body: JSON.stringify({ code }),
    });

  test('every sandbox busy: 503 with Retry-After, then the cell runs once the other ends', async () => {
    const a = await newThread();
    const b = await newThread();
    const busy = exec(a, 'import time\nprint("a", flush=True)\ntime.sleep(9)');
    // Wait until thread a holds the one sandbox allowed (its container has started).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const admin = await json(await server.fetch('/v1/admin/sandbox'));
      if (JSON.stringify(admin).includes('"sessions":1')) break;
      assert.ok(Date.now() < deadline, `thread a never got its sandbox: ${JSON.stringify(admin)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const refused = await exec(b, 'print("b")');
    assert.equal(refused.headers.get('retry-after'), '5');
    const error = await expectError(refused, 503);
    assert.equal(error.code, 'sandbox_busy');
    assert.match(error.message, /all 1 sandboxes of this server are running cells/);
    assert.equal((await (await busy).json()).output, 'a\n');
    const after = await json(await exec(b, 'print("b")'));
    assert.equal(after.output, 'b\n', 'the idle sandbox of a was given back to make room');
  });
});
