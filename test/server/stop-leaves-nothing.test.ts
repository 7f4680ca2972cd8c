import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import { loopDevicesUnder, mountsUnder, unmountUnder } from '../helpers/mounts.ts';
import { freshDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/postgres.ts';
import { docker, eventually } from '../helpers/sandbox.ts';
import { call, type ReplicaProcess, readRunEvents, startReplica } from '../scale/replica-process.ts';

/**
 * Issue 29 finding 8: whatever happened before (a kill -9 mid-run, replicas sharing a data
 * directory, a database gone away), a clean stop leaves nothing of the data directory
 * mounted: no workspace mount, no loop device, no container, no slot bind, no temp file.
 */

const script = {
  mode: 'match' as const,
  turns: [
    {
      when: { last_contains: 'Wait forever' },
      content: '<Code>\nimport time\nprint("waiting", flush=True)\ntime.sleep(60)\n</Code>',
    },
    {
      when: { last_contains: 'Count for a while' },
      content:
        '<Code>\nimport time\nfor i in range(6):\n    print("tick", i, flush=True)\n    time.sleep(0.5)\n</Code>',
    },
    { when: { last_role: 'execute' }, content: '<Answer>done</Answer>' },
  ],
};

/** What a stopped server left of `dataDir`: mounts, loop devices, containers of its processes, stray files. */
async function leftovers(dataDir: string, processes: ReplicaProcess[]) {
  const pids = processes.map((p) => String(p.child.pid));
  const containers = (
    await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } })
  ).filter((c) => pids.includes(c.Labels?.[LABELS.ownerPid] ?? ''));
  return {
    mounts: (await mountsUnder(dataDir)).map((m) => relative(dataDir, m.point)),
    loopDevices: loopDevicesUnder(dataDir),
    containers: containers.map((c) => c.Names?.[0]),
    strayFiles: await strayFiles(dataDir),
  };
}

/**
 * Files a stopped server should not have left: anything but the database, uploads and the
 * workspaces' images (and their empty mount points).
 */
async function strayFiles(dataDir: string): Promise<string[]> {
  const stray: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const rel = relative(dataDir, path);
      if (/^analyst\.db(-wal|-shm)?$/.test(rel) || rel === 'files' || rel.startsWith('files/')) continue;
      if (/^workspaces\/ws-[0-9a-f]{24}\.img$/.test(rel)) continue;
      if ((await stat(path)).isDirectory()) {
        const inside = await readdir(path);
        // An empty workspace mount point, or an empty folder the server keeps.
        if (inside.length === 0 && /^(workspaces(\/ws-[0-9a-f]{24}|\/\.holders)?|run|run\/slots)$/.test(rel))
          continue;
        await walk(path);
        if (inside.length === 0) stray.push(`${rel}/`);
      } else stray.push(rel);
    }
  };
  await walk(dataDir);
  return stray;
}

const nothingLeft = { mounts: [], loopDevices: [], containers: [], strayFiles: [] };

async function newThread(on: ReplicaProcess): Promise<string> {
  const { status, body } = await call(on.url, '/v1/threads', { body: { title: 'recovery' } });
  assert.equal(status, 201, JSON.stringify(body));
  return body.id as string;
}

async function startRun(on: ReplicaProcess, threadId: string, question: string) {
  const { status, body } = await call(on.url, `/v1/threads/${threadId}/runs`, {
    body: { model: 'scripted', messages: [{ role: 'user', content: question }] },
  });
  assert.equal(status, 201, JSON.stringify(body));
  return body as { id: string; thread_id: string };
}

async function waitForOutput(on: ReplicaProcess, threadId: string): Promise<void> {
  await eventually(
    async () => {
      const { body } = await call(on.url, `/v1/threads/${threadId}/events`);
      return ((body.data as Array<{ type: string }>) ?? []).some((e) => e.type === 'execution-output');
    },
    'the cell started',
    60_000,
  );
}

async function withDataDir(
  work: (dataDir: string, model: ScriptedModel, started: ReplicaProcess[]) => Promise<void>,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'analyst-stop-'));
  const model = await startScriptedModel({ script });
  const started: ReplicaProcess[] = [];
  try {
    await work(dataDir, model, started);
  } finally {
    for (const process of started) await process.kill();
    await model.close();
    await unmountUnder(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const modelEnv = (model: ScriptedModel) => ({
  ANALYST_MODEL_URL: model.url,
  ANALYST_MODEL: 'scripted',
  ANALYST_MODEL_PROTOCOL: 'deepanalyze',
});

async function killRestartStop(database?: TestDatabase): Promise<void> {
  await withDataDir(async (dataDir, model, started) => {
    const env = database
      ? { ...modelEnv(model), ANALYST_DATABASE_URL: database.url, ANALYST_RUN_LEASE_MS: '3000' }
      : modelEnv(model);
    const first = await startReplica(dataDir, env);
    started.push(first);
    const threads = [await newThread(first), await newThread(first), await newThread(first)];
    for (const thread of threads) await startRun(first, thread, 'Wait forever');
    for (const thread of threads) await waitForOutput(first, thread);
    assert.ok((await mountsUnder(dataDir)).length >= 3, 'the runs have their workspaces mounted');
    await first.kill();
    // The killed server's sandboxes lose their host and go; its mounts stay until someone frees them.
    const second = await startReplica(dataDir, env);
    started.push(second);
    // The restarted server still serves every thread's files (its workspace is taken over).
    for (const thread of threads) {
      const { status } = await call(second.url, `/v1/threads/${thread}/files`);
      assert.equal(status, 200);
    }
    await second.stop();
    await eventually(
      async () => (await leftovers(dataDir, started)).containers.length === 0,
      'the killed server’s sandboxes are gone',
      30_000,
    );
    assert.deepEqual(await leftovers(dataDir, started), nothingLeft);
  });
}

test('kill -9 mid-run, restart, clean stop: nothing of the data directory stays', () => killRestartStop());

describe('on PostgreSQL', {
  skip: TEST_DATABASE_URL ? false : 'no PostgreSQL server (ANALYST_TEST_DATABASE_URL); npm test starts one',
}, () => {
  test('kill -9 mid-run, restart, clean stop: nothing of the data directory stays', async () => {
    const database = await freshDatabase();
    try {
      await killRestartStop(database);
    } finally {
      await database.drop();
    }
  });

  test('two replicas on one data directory, a run followed from the other, both stopped: nothing stays', async () => {
    const database: TestDatabase = await freshDatabase();
    try {
      await withDataDir(async (dataDir, model, started) => {
        const env = { ...modelEnv(model), ANALYST_DATABASE_URL: database.url, ANALYST_RUN_LEASE_MS: '3000' };
        const a = await startReplica(dataDir, env);
        started.push(a);
        const b = await startReplica(dataDir, env);
        started.push(b);
        const thread = await newThread(a);
        const run = await startRun(a, thread, 'Count for a while');
        const followed = await readRunEvents(`${b.url}/v1/threads/${thread}/runs/${run.id}/events`);
        assert.ok(followed.ended);
        assert.ok(followed.events.some((e) => e.data.type === 'execution-output'));
        // Both replicas used the workspace (B lists its files too).
        assert.equal((await call(b.url, `/v1/threads/${thread}/files`)).status, 200);
        await a.stop();
        // B still holds the workspace: A's stop must not take it away.
        assert.equal((await call(b.url, `/v1/threads/${thread}/files`)).status, 200);
        assert.equal(
          (await mountsUnder(dataDir)).filter((m) => m.point.includes('/workspaces/ws-')).length,
          1,
        );
        await b.stop();
        assert.deepEqual(await leftovers(dataDir, started), nothingLeft);
      });
    } finally {
      await database.drop();
    }
  });

  test('a server whose database went away before its stop leaves nothing either', async () => {
    const database: TestDatabase = await freshDatabase();
    let dropped = false;
    try {
      await withDataDir(async (dataDir, model, started) => {
        const server = await startReplica(dataDir, {
          ...modelEnv(model),
          ANALYST_DATABASE_URL: database.url,
        });
        started.push(server);
        const thread = await newThread(server);
        await startRun(server, thread, 'Wait forever');
        await waitForOutput(server, thread);
        assert.ok(
          (await mountsUnder(dataDir)).some((m) => m.point.includes('/run/slots/')),
          'the session’s workspace is bound into its slot',
        );
        await database.drop();
        dropped = true;
        await server.stop();
        assert.deepEqual(await leftovers(dataDir, started), nothingLeft);
      });
    } finally {
      if (!dropped) await database.drop();
    }
  });
});
