import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { json, startTestServer, type TestServer } from './helpers.ts';

/**
 * The thread's file list right after `run-end` (issue 31, defect 6): the reports are written
 * after the run's last event, and a client that lists the files when it sees `run-end` (the
 * studio) must find them there, whole. Real server, real sandbox, scripted model.
 */
let server: TestServer;
before(async () => {
  server = await startTestServer({
    script: {
      mode: 'match',
      turns: [
        {
          when: { last_role: 'user' },
          content: '<Code>\nprint("rows", 3)\n</Code>',
        },
        { when: { last_role: 'execute' }, content: '<Answer>There are **3** rows.</Answer>' },
      ],
    },
  });
});
after(() => server.close());

/** Starts a run and reads its event stream to its end (the stream closes after run-end). */
async function runToEnd(threadId: string, question: string): Promise<string[]> {
  const started = await server.fetch(`/v1/threads/${threadId}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: question }] }),
  });
  assert.equal(started.status, 201);
  const run = await json(started);
  const stream = await server.fetch(`/v1/threads/${threadId}/runs/${run.id}/events`);
  const text = await stream.text();
  return [...text.matchAll(/"type":"([a-z-]+)"/g)].map((m) => m[1]!);
}

async function listed(threadId: string): Promise<Map<string, number>> {
  const response = await server.fetch(`/v1/threads/${threadId}/files`);
  assert.equal(response.status, 200);
  const body = (await json(response)) as unknown as { data: Array<{ path: string; bytes: number }> };
  return new Map(body.data.map((f) => [f.path, f.bytes]));
}

test('a listing made at run-end has the reports, whole; so has one after a second run', async () => {
  const created = await server.fetch('/v1/threads', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'files after run', metadata: { model: 'scripted' } }),
  });
  const threadId = (await json(created)).id as string;
  for (const question of ['How many rows?', 'How many rows, again?']) {
    const types = await runToEnd(threadId, question);
    assert.equal(types.at(-1), 'run-end');
    const files = await listed(threadId);
    for (const name of ['reports/report.md', 'reports/report.html', 'reports/analysis.ipynb']) {
      assert.ok((files.get(name) ?? 0) > 0, `${name} is listed with its size: ${JSON.stringify([...files])}`);
    }
    const report = await server.fetch(`/v1/threads/${threadId}/files/reports/report.md`);
    assert.match(await report.text(), /How many rows/);
  }
});
