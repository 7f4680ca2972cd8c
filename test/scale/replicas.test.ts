import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import { unmountUnder } from '../helpers/mounts.ts';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/postgres.ts';
import { docker, eventually } from '../helpers/sandbox.ts';
import { call, type ReplicaProcess, readRunEvents, startReplica } from './replica-process.ts';

/** A dead replica's runs are interrupted within this (short here; 15 s by default). */
const LEASE_MS = 3000;

const script = {
  mode: 'match' as const,
  turns: [
    {
      when: { last_contains: 'Write the totals' },
      content:
        '<Analyze>I will write the totals to a file.</Analyze>\n<Code>\nopen("totals.csv", "w").write("region,total\\nNorth,10\\n")\nprint("written")\n</Code>',
    },
    {
      when: { last_role: 'execute', any_contains: 'Write the totals' },
      content: '<Answer>The totals are in totals.csv.</Answer>',
    },
    {
      when: { last_contains: 'Count slowly' },
      content:
        '<Analyze>I will count the rows of the file one by one, slowly and carefully.</Analyze>\n<Code>\nimport time\nfor i in range(4):\n    print("step", i, flush=True)\n    time.sleep(0.4)\n</Code>',
      chunk_chars: 4,
      chunk_delay_ms: 10,
    },
    {
      when: { last_role: 'execute', any_contains: 'Count slowly' },
      content: '<Answer>There were four steps, counted one at a time.</Answer>',
      chunk_chars: 3,
      chunk_delay_ms: 10,
    },
    {
      when: { last_contains: 'Count for a while' },
      content:
        '<Code>\nimport time\nfor i in range(8):\n    print("tick", i, flush=True)\n    time.sleep(0.5)\n</Code>',
    },
    {
      when: { last_role: 'execute', any_contains: 'Count for a while' },
      content: '<Answer>Eight ticks.</Answer>',
    },
    {
      when: { last_contains: 'Wait forever' },
      content: '<Code>\nimport time\nprint("waiting", flush=True)\ntime.sleep(60)\n</Code>',
    },
    { when: { last_role: 'execute' }, content: '<Answer>stopped</Answer>' },
  ],
};

type Run = { id: string; status: string; thread_id: string };

/**
 * Two `analyst serve` processes on one PostgreSQL database and one data directory act as
 * one service (issue 14 §2): any replica answers for any thread; one run per thread over
 * both; a run's events reach subscribers on the other replica as they happen; cancel from
 * either reaches the owner; a restarted replica leaves the other's runs alone; a replica
 * killed with SIGKILL has its run marked interrupted by the other within the lease and
 * its sandbox container reaped.
 */
describe('two replicas on one PostgreSQL and one data directory', {
  skip: TEST_DATABASE_URL ? false : 'no PostgreSQL server (ANALYST_TEST_DATABASE_URL); npm test starts one',
}, () => {
  let database: TestDatabase;
  let dataDir: string;
  let model: ScriptedModel;
  let a: ReplicaProcess;
  let b: ReplicaProcess;
  const started: ReplicaProcess[] = [];
  const env = () => ({
    ANALYST_DATABASE_URL: database.url,
    ANALYST_RUN_LEASE_MS: String(LEASE_MS),
    ANALYST_MODEL_URL: model.url,
    ANALYST_MODEL: 'scripted',
    ANALYST_MODEL_PROTOCOL: 'deepanalyze',
  });
  const replica = async () => {
    const process = await startReplica(dataDir, env());
    started.push(process);
    return process;
  };

  before(async () => {
    database = await freshDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'analyst-replicas-'));
    model = await startScriptedModel({ script });
    // Started one after the other: the second finds the schema the first made.
    a = await replica();
    b = await replica();
  });
  after(async () => {
    for (const process of started) await process.stop();
    const pids = started.map((p) => String(p.child.pid));
    // Nothing either replica made outlives it: the stopped ones removed theirs, the killed one's were reaped.
    const left = (
      await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } })
    ).filter((c) => pids.includes(c.Labels?.[LABELS.ownerPid] ?? ''));
    await model.close();
    await unmountUnder(dataDir);
    await rm(dataDir, { recursive: true, force: true });
    await database.drop();
    assert.deepEqual(
      left.map((c) => c.Names?.[0]),
      [],
      'containers of the replicas were left behind',
    );
  });

  const newThread = async (on: ReplicaProcess, title: string) => {
    const { status, body } = await call(on.url, '/v1/threads', { body: { title } });
    assert.equal(status, 201, JSON.stringify(body));
    return body.id as string;
  };
  const startRun = (on: ReplicaProcess, threadId: string, question: string) =>
    call(on.url, `/v1/threads/${threadId}/runs`, {
      body: { model: 'scripted', messages: [{ role: 'user', content: question }] },
    });
  const eventsUrl = (on: ReplicaProcess, run: Run) =>
    `${on.url}/v1/threads/${run.thread_id}/runs/${run.id}/events`;
  const waitForOutput = (on: ReplicaProcess, threadId: string) =>
    eventually(
      async () => {
        const { body } = await call(on.url, `/v1/threads/${threadId}/events`);
        return (body.data as Array<{ type: string }>).some((e) => e.type === 'execution-output');
      },
      'the cell started',
      30_000,
    );
  const containersOf = async (threadId: string) =>
    docker.listContainers({ all: true, filters: { label: [`${LABELS.owner}=${threadId}`] } });

  test('any replica answers for any thread: files, workspace downloads, reports and notebooks', async () => {
    const form = new FormData();
    form.append('file', new Blob(['region,amount\nNorth,10\n']), 'sales.csv');
    const uploaded = (await (await fetch(`${a.url}/v1/files`, { method: 'POST', body: form })).json()) as {
      id: string;
    };
    const content = await fetch(`${b.url}/v1/files/${uploaded.id}/content`);
    assert.equal(await content.text(), 'region,amount\nNorth,10\n');

    const chat = await call(a.url, '/v1/chat/completions', {
      body: {
        model: 'scripted',
        messages: [{ role: 'user', content: 'Write the totals' }],
        file_ids: [uploaded.id],
      },
    });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const message = (chat.body.choices as Array<{ message: { thread_id: string; content: string } }>)[0]!
      .message;
    assert.match(message.content, /The totals are in totals\.csv/);
    const threadId = message.thread_id;
    const thread = await call(b.url, `/v1/threads/${threadId}`);
    assert.equal(thread.status, 200);
    assert.deepEqual(
      (thread.body.runs as Run[]).map((r) => r.status),
      ['completed'],
    );
    const file = await fetch(`${b.url}/v1/threads/${threadId}/files/totals.csv`);
    assert.equal(await file.text(), 'region,total\nNorth,10\n');
    const listed = await call(b.url, `/v1/threads/${threadId}/files`);
    const paths = (listed.body.data as Array<{ path: string }>).map((f) => f.path);
    assert.ok(paths.includes('sales.csv') && paths.includes('totals.csv'), paths.join());
    const report = await fetch(`${b.url}/v1/threads/${threadId}/report?format=md`);
    assert.equal(report.status, 200);
    assert.match(await report.text(), /totals\.csv/);
    const html = await fetch(`${b.url}/v1/threads/${threadId}/report?format=html`);
    assert.match(await html.text(), /The totals are in totals\.csv/);
    const notebook = (await (await fetch(`${b.url}/v1/threads/${threadId}/notebook`)).json()) as {
      nbformat: number;
      cells: Array<{ source: string | string[] }>;
    };
    assert.equal(notebook.nbformat, 4);
    assert.ok(
      notebook.cells.some((c) => [c.source].flat().join('').includes('totals.csv')),
      'the notebook has the cell',
    );
    // Its messages, and its title, are the same through both.
    assert.deepEqual(
      (await call(a.url, `/v1/threads/${threadId}/messages`)).body,
      (await call(b.url, `/v1/threads/${threadId}/messages`)).body,
    );
  });

  test('two runs on one thread through two replicas at once: one runs, the other gets 409', async () => {
    const threadId = await newThread(a, 'Race');
    const [onA, onB] = await Promise.all([
      startRun(a, threadId, 'Count slowly'),
      startRun(b, threadId, 'Count slowly'),
    ]);
    const statuses = [onA.status, onB.status].sort();
    assert.deepEqual(statuses, [201, 409], JSON.stringify([onA.body, onB.body]));
    const loser = onA.status === 409 ? onA : onB;
    assert.equal(typeof (loser.body.error as { message: string }).message, 'string');
    const winner = (onA.status === 201 ? onA : onB).body as unknown as Run;
    // While it runs, a chat on that thread through either replica is refused too.
    for (const on of [a, b]) {
      const chat = await call(on.url, '/v1/chat/completions', {
        body: {
          model: 'scripted',
          thread_id: threadId,
          messages: [{ role: 'user', content: 'Count slowly' }],
        },
      });
      assert.equal(chat.status, 409, JSON.stringify(chat.body));
      const listed = await call(on.url, `/v1/threads?limit=50`);
      const shown = (listed.body.data as Array<{ id: string; busy: boolean }>).find((t) => t.id === threadId);
      assert.equal(shown?.busy, true, 'both replicas show the thread busy');
    }
    const { events } = await readRunEvents(eventsUrl(b, winner));
    assert.equal(events.at(-1)?.data.status, 'completed');
  });

  test("a run's events reach subscribers on the other replica as they happen, the same as on its own", async () => {
    const threadId = await newThread(a, 'Counting');
    const run = (await startRun(a, threadId, 'Count for a while')).body as unknown as Run;
    const [own, other] = await Promise.all([
      readRunEvents(eventsUrl(a, run)),
      readRunEvents(eventsUrl(b, run)),
    ]);
    assert.ok(own.ended && other.ended);
    assert.deepEqual(
      other.events.map((e) => e.data),
      own.events.map((e) => e.data),
      `the same events, in the same order: ${other.events.map((e) => e.id)} vs ${own.events.map((e) => e.id)}`,
    );
    assert.deepEqual(
      other.events.map((e) => e.id),
      other.events.map((_, i) => i),
      'no gap, no duplicate',
    );
    // The cell prints a tick every 0.5 s for 4 s: the other replica relays each as it comes,
    // about when the replica running it does.
    const outputs = other.events.filter((e) => e.data.type === 'execution-output');
    const t0 = own.events[0]!.at;
    const timeline = (list: typeof own.events) =>
      list.filter((e) => e.data.type === 'execution-output').map((e) => `${e.id}@${e.at - t0}`);
    const spread = outputs.at(-1)!.at - outputs[0]!.at;
    assert.ok(
      outputs.length >= 3 && spread >= 1500,
      `the outputs arrived within ${spread} ms: batched, not live (own ${timeline(own.events)}; other ${timeline(outputs)})`,
    );
    const lag = outputs.map((e) => e.at - own.events.find((o) => o.id === e.id)!.at);
    assert.ok(Math.max(...lag) < 1000, `the other replica lagged by up to ${Math.max(...lag)} ms`);
    // A client that reconnects to the other replica resumes where it left off.
    const resumed = await readRunEvents(`${eventsUrl(b, run)}?after=5`);
    assert.deepEqual(
      resumed.events.map((e) => e.id),
      own.events.slice(6).map((e) => e.id),
    );
  });

  test('cancel through one replica stops the run on the other within a second and a half', async () => {
    const threadId = await newThread(a, 'Forever');
    const run = (await startRun(a, threadId, 'Wait forever')).body as unknown as Run;
    const watching = readRunEvents(eventsUrl(a, run));
    await waitForOutput(b, threadId);
    const asked = Date.now();
    const cancelled = await call(b.url, `/v1/threads/${threadId}/runs/${run.id}/cancel`, { method: 'POST' });
    assert.equal(cancelled.status, 200);
    const { events } = await watching;
    const elapsed = Date.now() - asked;
    assert.ok(elapsed < 1500, `the run ended ${elapsed} ms after the cancel`);
    const end = events.find((e) => e.data.type === 'execution-end')?.data.result as { status: string };
    assert.equal(end.status, 'cancelled');
    assert.equal(events.at(-1)?.data.status, 'cancelled');
  });

  test('a thread deleted through one replica takes its sandbox on the other with it', async () => {
    const threadId = await newThread(a, 'Delete me');
    const exec = await call(a.url, `/v1/threads/${threadId}/exec`, { body: { code: 'print(6 * 7)' } });
    assert.equal((exec.body as { output: string }).output, '42\n');
    assert.equal((await containersOf(threadId)).length, 1, 'the session sandbox lives on A');
    const deleted = await call(b.url, `/v1/threads/${threadId}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    await eventually(
      async () => (await containersOf(threadId)).length === 0,
      'the sandbox on A went',
      10_000,
    );
    assert.equal((await call(a.url, `/v1/threads/${threadId}`)).status, 404);
  });

  test('a restarted replica leaves the runs of the other alone, and can cancel them', async () => {
    const threadId = await newThread(b, 'Survives a restart');
    const run = (await startRun(b, threadId, 'Wait forever')).body as unknown as Run;
    await waitForOutput(b, threadId);
    await a.stop();
    a = await replica();
    // Longer than a lease: B renewed it, and the new A marked nothing.
    await new Promise((r) => setTimeout(r, LEASE_MS + 1000));
    const status = await call(a.url, `/v1/threads/${threadId}/runs/${run.id}`);
    assert.equal(status.body.status, 'running', JSON.stringify(status.body));
    const watching = readRunEvents(eventsUrl(a, run));
    await call(a.url, `/v1/threads/${threadId}/cancel`, { method: 'POST' });
    const { events } = await watching;
    assert.equal(events.at(-1)?.data.status, 'cancelled');
  });

  test('a replica killed mid-run: the other marks the run interrupted within the lease and reaps its sandbox', async () => {
    const threadId = await newThread(a, 'Killed');
    const run = (await startRun(a, threadId, 'Wait forever')).body as unknown as Run;
    await waitForOutput(b, threadId);
    assert.equal((await containersOf(threadId)).length, 1);
    const following = readRunEvents(eventsUrl(b, run));
    await new Promise((r) => setTimeout(r, 200));
    const killed = Date.now();
    await a.kill();
    const { events, ended } = await following;
    const noticed = Date.now() - killed;
    assert.ok(ended, "the other replica's stream ends");
    assert.ok(noticed <= LEASE_MS + 1000, `interrupted ${noticed} ms after the kill (lease ${LEASE_MS} ms)`);
    assert.ok(
      events.some((e) => e.data.type === 'execution-output'),
      'what was stored before the kill was relayed',
    );
    const stored = await call(b.url, `/v1/threads/${threadId}/runs/${run.id}`);
    assert.equal(stored.body.status, 'interrupted');
    assert.match(String(stored.body.reason), /stopped/);
    await eventually(
      async () => (await containersOf(threadId)).length === 0,
      "the killed replica's sandbox is reaped",
      15_000,
    );
    // The thread is usable again, through the survivor.
    const again = await startRun(b, threadId, 'Count slowly');
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const { events: next } = await readRunEvents(eventsUrl(b, again.body as unknown as Run));
    assert.equal(next.at(-1)?.data.status, 'completed');
  });
});
