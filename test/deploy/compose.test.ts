import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import { ANALYSIS_SCRIPT, SALES_CSV } from '../mcp/helpers.ts';
import {
  API_KEY,
  ComposeProject,
  Docker,
  ensureAppImage,
  hostGateway,
  mounts,
  runProgram,
  waitReady,
} from './compose-helpers.ts';

/**
 * Analyst in containers, against the real engine with the real compose files: the plain
 * set-up (no engine socket) and the opt-in one (compose-python.yaml: the socket, sibling
 * sandboxes, the root workspace helper). Each project is brought down with its volume and
 * the test checks that nothing of it is left.
 */
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const log = (line: string) => process.stderr.write(`[compose test] ${line}\n`);
const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const projectName = (what: string) => `analyst-test-${what}-${randomBytes(4).toString('hex')}`;

/** The fields of the answers this test reads (threads, lists, exec results). */
interface Wire {
  id: string;
  status: string;
  message: string;
  output: string;
  data: Array<{ id?: string; path?: string }>;
}

async function json(response: Response): Promise<Wire> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Wire;
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 500)}`);
  }
}

async function assertNothingLeft(project: ComposeProject): Promise<void> {
  assert.deepEqual(await project.leftovers(docker), [], `project ${project.name} left things behind`);
}

describe('compose.yaml and compose-python.yaml on the real engine', { timeout: 600_000 }, () => {
  let image: string;

  before(async () => {
    image = await ensureAppImage(docker, log);
  });

  test('compose.yaml: no engine socket, non-root, files and threads served, execution unavailable and why', async () => {
    const project = new ComposeProject(projectName('plain'), ['compose.yaml'], {
      ANALYST_IMAGE: image,
      ANALYST_API_KEYS: API_KEY,
      ANALYST_PUBLISH: '127.0.0.1:0',
    });
    try {
      await project.up();
      const url = await project.url();
      const ready = await waitReady(url, project);
      assert.equal(ready.status, 'ready');
      const sandbox = ready.sandbox as { available: boolean; message: string };
      assert.equal(sandbox.available, false);
      assert.match(sandbox.message, /no Docker engine/);
      assert.match(sandbox.message, /compose-python\.yaml/);

      const [container] = await docker.listContainers({
        filters: { label: [`com.docker.compose.project=${project.name}`] },
      });
      const info = await docker.getContainer(container!.Id).inspect();
      assert.equal(info.Config.User, '65534:65534', 'the app is not root');
      assert.ok(
        !info.Mounts.some((mount) => /docker\.sock/.test(`${mount.Source} ${mount.Destination}`)),
        'no engine socket in the plain set-up',
      );

      // Files and threads work without an engine.
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY });
      const file = await client.files.create({
        file: await toFile(Buffer.from(SALES_CSV), 'sales.csv'),
        purpose: 'file-extract' as never,
      });
      assert.equal((await client.files.retrieve(file.id)).filename, 'sales.csv');
      const thread = await json(await fetch(`${url}/v1/threads`, { method: 'POST', headers, body: '{}' }));
      assert.match(thread.id, /^thread-/);
      const listed = await json(await fetch(`${url}/v1/threads`, { headers }));
      assert.ok(listed.data.some((t) => t.id === thread.id));

      // A cell is refused with the reason, not an engine error.
      for (const path of ['/v1/exec', `/v1/threads/${thread.id}/exec`]) {
        const cell = await json(
          await fetch(`${url}${path}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ code: 'print(1)' }),
          }),
        );
        assert.equal(cell.status, 'unavailable', path);
        assert.match(cell.message, /no Docker engine \(compose\.yaml mounts no engine socket/, path);
      }
    } finally {
      await project.down();
    }
    await assertNothingLeft(project);
  });

  describe('compose-python.yaml (the opt-in)', () => {
    let dataDir: string;
    let scripted: ScriptedModel;

    before(async () => {
      // The data directory: the same path on the host and in the containers, on a shared
      // mount so the helper's workspace mounts reach the engine (this host's / is private).
      dataDir = await mkdtemp('/var/tmp/analyst-compose-test-');
      for (const args of [
        ['--bind', dataDir, dataDir],
        ['--make-shared', dataDir],
      ]) {
        const result = await runProgram('mount', args);
        assert.equal(result.code, 0, `mount ${args.join(' ')}: ${result.stderr}`);
      }
      // The model runs here, on the bridge's address, which the app reaches as host.docker.internal.
      scripted = await startScriptedModel({ script: ANALYSIS_SCRIPT, host: await hostGateway(docker) });
    });

    after(async () => {
      await scripted?.close();
      if (dataDir) {
        const left = await mounts(dataDir);
        assert.deepEqual(left, [dataDir], 'a workspace is still mounted after down');
        await runProgram('umount', [dataDir]);
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    const optIn = (name: string, env: Record<string, string> = {}) =>
      new ComposeProject(name, ['compose.yaml', 'compose-python.yaml'], {
        ANALYST_IMAGE: image,
        ANALYST_API_KEYS: API_KEY,
        ANALYST_PUBLISH: '127.0.0.1:0',
        ANALYST_HOST_DATA_DIR: dataDir,
        PYTHON_DOCKER_GID: '',
        ...env,
      });

    test('up, ready, a chat with the scripted model and a thread cell in sibling sandboxes, down, nothing left', async () => {
      const gid = (await runProgram('stat', ['-c', '%g', '/var/run/docker.sock'])).stdout.trim();
      const port = new URL(scripted.url).port;
      const project = optIn(projectName('python'), {
        PYTHON_DOCKER_GID: gid,
        ANALYST_MODEL_URL: `http://host.docker.internal:${port}/v1`,
        ANALYST_MODEL: 'scripted',
        ANALYST_MODEL_PROTOCOL: 'deepanalyze',
      });
      let appHost = '';
      try {
        await project.up();
        const url = await project.url();
        const ready = await waitReady(url, project);
        assert.equal((ready.sandbox as { available: boolean }).available, true);
        assert.equal(ready.workspaces, 'loop-ext4 (workspace helper)');
        const [app] = await docker.listContainers({
          filters: {
            label: [`com.docker.compose.project=${project.name}`, 'com.docker.compose.service=analyst'],
          },
        });
        const info = await docker.getContainer(app!.Id).inspect();
        assert.equal(info.Config.User, '65534:65534', 'the app is not root');
        appHost = info.Config.Hostname;

        const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY });
        const file = await client.files.create({
          file: await toFile(Buffer.from(SALES_CSV), 'sales.csv'),
          purpose: 'file-extract' as never,
        });
        const answer = (await client.chat.completions.create({
          model: 'scripted',
          messages: [{ role: 'user', content: 'What do the amounts add up to?' }],
          file_ids: [file.id],
        } as never)) as unknown as { choices: Array<{ message: { content: string; thread_id: string } }> };
        const message = answer.choices[0]!.message;
        assert.match(message.content, /<Execute>[\s\S]*total 60[\s\S]*<\/Execute>/, message.content);
        assert.match(message.content, /add up to 60/);
        assert.deepEqual(scripted.failures, []);

        // A cell of that thread: the sandbox sees the files the server wrote into the
        // helper-mounted workspace, and what the cell writes is the server's to list.
        const cell = await json(
          await fetch(`${url}/v1/threads/${message.thread_id}/exec`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              code: 'import os\nopen("made.txt", "w").write("x")\nprint(os.getuid(), sorted(os.listdir(".")))',
            }),
          }),
        );
        assert.equal(cell.status, 'ok', JSON.stringify(cell));
        assert.match(cell.output, /^65534 \[.*'made\.txt'.*'sales\.csv'.*\]/);
        const files = await json(await fetch(`${url}/v1/threads/${message.thread_id}/files`, { headers }));
        assert.ok(files.data.some((f) => f.path === 'made.txt'));
        assert.ok((await mounts(dataDir)).some((path) => path.startsWith(`${dataDir}/workspaces/ws-`)));
      } finally {
        await project.down();
      }
      await assertNothingLeft(project);
      // The app removed its sandboxes when it stopped; the helper unmounted every workspace.
      const sandboxes = await docker.listContainers({
        all: true,
        filters: { label: [`dev.analyst.owner-host=${appHost}`] },
      });
      assert.deepEqual(
        sandboxes.map((c) => c.Names?.[0]),
        [],
        'sandboxes of the app are left',
      );
      assert.deepEqual(await mounts(dataDir), [dataDir]);
    });

    test('a wrong PYTHON_DOCKER_GID is detected at start, with how to fix it', async () => {
      const project = optIn(projectName('wrong-gid'), { PYTHON_DOCKER_GID: '4242' });
      try {
        await project.up();
        const deadline = Date.now() + 90_000;
        let logs = '';
        while (Date.now() < deadline && !/PYTHON_DOCKER_GID/.test(logs)) {
          await new Promise((resolve) => setTimeout(resolve, 2000));
          logs = await project.logs('analyst');
        }
        assert.match(logs, /permission denied on the Docker socket/);
        assert.match(logs, /PYTHON_DOCKER_GID its group \(stat -c %g \/var\/run\/docker\.sock\)/);
      } finally {
        await project.down();
      }
      await assertNothingLeft(project);
    });
  });
});
