import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/llm/scripted/server.ts';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import { unmountUnder } from '../helpers/mounts.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { docker, eventually, TEST_IMAGE } from '../helpers/sandbox.ts';
import { describeEachStore } from '../helpers/stores.ts';

/** `analyst serve` as a separate process, so it can be killed for real. */
async function serve(
  dataDir: string,
  modelUrl: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bin/analyst.js', 'serve', '--port', '0', '--data-dir', dataDir], {
    env: {
      ...process.env,
      PYTHON_SANDBOX_IMAGE: TEST_IMAGE,
      ANALYST_MODEL_URL: modelUrl,
      ANALYST_MODEL: 'scripted',
      ANALYST_MODEL_PROTOCOL: 'deepanalyze',
      ANALYST_POOL_SESSION: '0',
      ANALYST_POOL_EPHEMERAL: '0',
      ANALYST_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });
  return { child, url };
}

describeEachStore('a server killed mid-run', (store) => {
  test('loses nothing acknowledged, marks the run interrupted and leaks no container', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'analyst-crash-'));
    const database = store === 'postgres' ? await freshDatabase() : undefined;
    // On PostgreSQL the restarted server waits out the dead one's lease (kept short here).
    const env: Record<string, string> = database
      ? { ANALYST_DATABASE_URL: database.url, ANALYST_RUN_LEASE_MS: '2000' }
      : {};
    const model = await startScriptedModel({
      script: {
        mode: 'match',
        turns: [
          {
            when: {},
            content:
              '<Analyze>Wait a while.</Analyze>\n<Code>\nimport time\nprint("working", flush=True)\ntime.sleep(60)\n</Code>',
          },
        ],
      },
    });
    let first: ChildProcess | undefined;
    let second: ChildProcess | undefined;
    try {
      const started = await serve(dataDir, model.url, env);
      first = started.child;
      const response = await fetch(`${started.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'scripted',
          stream: true,
          messages: [{ role: 'user', content: 'Take your time' }],
        }),
      });
      // Read the stream until the cell starts (its code is closed), then kill the server without warning.
      const reader = response.body!.getReader();
      let raw = '';
      let content = '';
      while (!content.includes('</Code>')) {
        const { value, done } = await reader.read();
        if (done) break;
        raw += Buffer.from(value).toString();
        const events = raw.split('\n\n');
        raw = events.pop() ?? '';
        for (const event of events) {
          const data = event.replace(/^data: /, '');
          if (data !== '[DONE]') content += JSON.parse(data).choices?.[0]?.delta?.content ?? '';
        }
      }
      await new Promise((r) => setTimeout(r, 1500)); // the cell has started in its sandbox
      first.kill('SIGKILL');
      await new Promise((r) => first!.once('exit', r));
      await reader.cancel().catch(() => {});

      const restarted = await serve(dataDir, model.url, env);
      second = restarted.child;
      const threads = (await (await fetch(`${restarted.url}/v1/threads`)).json()) as {
        data: Array<{ id: string }>;
      };
      assert.equal(threads.data.length, 1);
      const threadId = threads.data[0]!.id;
      type Thread = { runs: Array<{ id: string; status: string; reason: string }> };
      const readThread = async () =>
        (await (await fetch(`${restarted.url}/v1/threads/${threadId}`)).json()) as Thread;
      // SQLite: at once (the restart marks it). PostgreSQL: once the dead server's lease passed.
      if (database) {
        await eventually(
          async () => (await readThread()).runs[0]?.status === 'interrupted',
          'the run is marked interrupted',
          10_000,
        );
      }
      const thread = await readThread();
      assert.equal(thread.runs.length, 1);
      assert.equal(thread.runs[0]!.status, 'interrupted');
      assert.match(thread.runs[0]!.reason, /server stopped/);
      // The runs API reads it the same way, and its events replay (the stream then ends).
      const runPath = `${restarted.url}/v1/threads/${threadId}/runs/${thread.runs[0]!.id}`;
      assert.equal(((await (await fetch(runPath)).json()) as { status: string }).status, 'interrupted');
      const replay = await (await fetch(`${runPath}/events`)).text();
      const replayed = [...replay.matchAll(/^data: (.*)$/gm)].map(
        (m) => JSON.parse(m[1]!) as { type: string },
      );
      assert.equal(replayed[0]?.type, 'run-start');
      assert.ok(
        replayed.some((e) => e.type === 'execution-start'),
        'the cell start replays',
      );
      const messages = (await (await fetch(`${restarted.url}/v1/threads/${threadId}/messages`)).json()) as {
        data: Array<{ role: string; content: Array<{ text: { value: string } }> }>;
      };
      assert.equal(messages.data[0]!.role, 'user');
      assert.equal(messages.data[0]!.content[0]!.text.value, 'Take your time');
      const events = (await (await fetch(`${restarted.url}/v1/threads/${threadId}/events`)).json()) as {
        data: Array<{ type: string }>;
      };
      const types = events.data.map((e) => e.type);
      for (const type of ['run-start', 'round-start', 'text-delta', 'code-end', 'execution-start'])
        assert.ok(types.includes(type), `${type} was stored`);
      const report = await fetch(`${restarted.url}/v1/threads/${threadId}/report?format=md`);
      assert.match(await report.text(), /time\.sleep\(60\)/);
      // No sandbox of that thread survives: its kernel lost its host, and the reaper ran.
      await eventually(
        async () => {
          const left = await docker.listContainers({
            all: true,
            filters: { label: [`${LABELS.owner}=${threadId}`] },
          });
          return left.length === 0;
        },
        'the killed server’s sandbox container is gone',
        20_000,
      );
    } finally {
      first?.kill('SIGKILL');
      second?.kill('SIGTERM');
      if (second) await new Promise((r) => second!.once('exit', r));
      await model.close();
      await database?.drop();
      await unmountUnder(dataDir); // what the killed server left mounted
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
