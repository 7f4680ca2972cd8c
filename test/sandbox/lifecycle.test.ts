import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import {
  containersOfInstance,
  docker,
  eventually,
  TEST_IMAGE,
  tempWorkspace,
  testSandbox,
  testWorkspaces,
} from '../helpers/sandbox.ts';

describe('sandbox lifecycle', () => {
  test('an idle session container is removed after its TTL and recreated on demand', async () => {
    const sandbox = await testSandbox({ sessionIdleMs: 500 });
    const workspace = await tempWorkspace();
    try {
      const ref = { id: 'ttl-thread', workspace: workspace.ws };
      await sandbox.runCell(ref, { code: 'open("kept.txt","w").write("1")' });
      assert.equal((await containersOfInstance(sandbox.instanceId)).length, 1);
      await new Promise((r) => setTimeout(r, 700));
      await sandbox.sweep();
      await eventually(
        async () => (await containersOfInstance(sandbox.instanceId)).length === 0,
        'idle container removed',
      );
      const again = await sandbox.runCell(ref, { code: 'print(open("kept.txt").read())' });
      assert.equal(again.output, '1\n');
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  test('a killed manager process leaks no sandbox container', async () => {
    const workspace = await tempWorkspace();
    const script = `
      import { createDockerSandbox } from './src/sandbox/docker/manager.ts';
      import { userDirectoryWorkspace } from './src/workspace/index.ts';
      const sandbox = await createDockerSandbox({ image: process.argv[1], reapIntervalMs: 0, pool: { session: 1, ephemeral: 1 } });
      const workspace = await userDirectoryWorkspace(process.argv[2]);
      await sandbox.runCell({ id: 't', workspace }, { code: 'print(1)' });
      console.log('instance', sandbox.instanceId);
      sandbox.runCell({ id: 't', workspace }, { code: 'import time; time.sleep(60)' });
      setInterval(() => {}, 1000);
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, TEST_IMAGE, workspace.dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const instance = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          const match = /instance (\S+)/.exec(d.toString());
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      await new Promise((r) => setTimeout(r, 500));
      assert.ok((await containersOfInstance(instance)).length >= 1);
      child.kill('SIGKILL');
      // The kernels see their stdin close, exit, and Docker removes the containers.
      await eventually(
        async () => (await containersOfInstance(instance)).length === 0,
        'containers of the killed process gone',
        30_000,
      );
    } finally {
      child.kill('SIGKILL');
      await workspace.cleanup();
    }
  });

  test('the warm pool serves a new workspace and refills', async () => {
    const sandbox = await testSandbox({
      pool: { session: 1, ephemeral: 1 },
      workspaces: await testWorkspaces(),
    });
    try {
      await eventually(
        async () => (await sandbox.status()).pool.session === 1,
        'session pool filled',
        60_000,
      );
      const allocated = await sandbox.allocateWorkspace();
      assert.equal(allocated.warm, true);
      const started = performance.now();
      const result = await sandbox.runCell(
        { id: 'pooled-thread', workspace: allocated.workspace },
        { code: 'print("warm")' },
      );
      const elapsed = performance.now() - started;
      assert.equal(result.output, 'warm\n');
      assert.ok(elapsed < 1000, `first cell on a pooled sandbox took ${elapsed} ms`);
      await eventually(
        async () => (await sandbox.status()).pool.session === 1,
        'session pool refilled',
        60_000,
      );
      await eventually(
        async () => (await sandbox.status()).pool.ephemeral === 1,
        'ephemeral pool filled',
        60_000,
      );
      const ephemeral = await sandbox.runEphemeral({ code: 'print(2)' });
      assert.equal(ephemeral.output, '2\n');
      await eventually(
        async () => (await sandbox.status()).pool.ephemeral === 1,
        'ephemeral pool refilled',
        60_000,
      );
      const names = await containersOfInstance(sandbox.instanceId);
      assert.ok(
        names.some((n) => n.includes('pooled-thread')),
        `claimed container renamed for its thread: ${names}`,
      );
    } finally {
      await sandbox.close();
    }
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  for (const stateful of [false, true]) {
    test(`cancel stops a running ${stateful ? 'stateful' : 'stateless'} cell within 1 s`, async () => {
      const sandbox = await testSandbox();
      const workspace = await tempWorkspace();
      try {
        const ref = { id: 'cancel-thread', workspace: workspace.ws, stateful };
        await sandbox.runCell(ref, { code: 'print(1)' });
        const controller = new AbortController();
        const running = sandbox.runCell(ref, {
          code: 'import time\nprint("started", flush=True)\ntime.sleep(30)',
          abortSignal: controller.signal,
          onOutput: () => controller.abort(),
        });
        const result = await running;
        const abortedAt = performance.now();
        assert.equal(result.status, 'cancelled');
        assert.ok(result.duration_ms < 1500, `cell ran ${result.duration_ms} ms`);
        const next = await sandbox.runCell(ref, { code: 'print("after cancel")' });
        assert.equal(next.output, 'after cancel\n');
        assert.ok(performance.now() - abortedAt < 5000);
      } finally {
        await sandbox.close();
        await workspace.cleanup();
      }
    });
  }

  test('cancel of an ephemeral cell removes its container within 1 s', async () => {
    const sandbox = await testSandbox();
    try {
      const controller = new AbortController();
      let abortedAt = 0;
      const result = await sandbox.runEphemeral({
        code: 'import time\nprint("go", flush=True)\ntime.sleep(30)',
        abortSignal: controller.signal,
        onOutput: () => {
          abortedAt = performance.now();
          controller.abort();
        },
      });
      assert.equal(result.status, 'cancelled');
      assert.ok(performance.now() - abortedAt < 1000);
      await eventually(
        async () => (await containersOfInstance(sandbox.instanceId)).length === 0,
        'ephemeral container removed',
        5000,
      );
    } finally {
      await sandbox.close();
    }
  });

  test('a sandbox that stops answering is removed after the host grace and replaced', async () => {
    const sandbox = await testSandbox({ limits: { hostGraceMs: 1000 } });
    const workspace = await tempWorkspace();
    try {
      const ref = { id: 'frozen-thread', workspace: workspace.ws };
      await sandbox.runCell(ref, { code: 'print(1)' });
      const [name] = await containersOfInstance(sandbox.instanceId);
      // The engine freezes the whole container: not even the kernel can report.
      const running = sandbox.runCell(ref, { code: 'import time\ntime.sleep(60)', timeoutMs: 1000 });
      await new Promise((r) => setTimeout(r, 200));
      await docker.getContainer(name!).pause();
      const frozen = await running;
      assert.equal(frozen.status, 'timeout');
      assert.match(frozen.message!, /did not answer/);
      const next = await sandbox.runCell(ref, { code: 'print("fresh")' });
      assert.equal(next.output, 'fresh\n');
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  test('a cell that stops the other sandbox processes cannot wedge it', async () => {
    const sandbox = await testSandbox();
    const workspace = await tempWorkspace();
    try {
      const ref = { id: 'stopper-thread', workspace: workspace.ws };
      const stopper = await sandbox.runCell(ref, {
        code: 'import os, signal\nfor pid in os.listdir("/proc"):\n    if pid.isdigit() and int(pid) != os.getpid():\n        try: os.kill(int(pid), signal.SIGSTOP)\n        except OSError: pass\nprint("stopped")',
      });
      assert.equal(stopper.output, 'stopped\n');
      const next = await sandbox.runCell(ref, { code: 'print("still here")' });
      assert.equal(next.output, 'still here\n');
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
  });

  test('a crashed kernel is reported and the next cell gets a fresh sandbox', async () => {
    const sandbox = await testSandbox();
    const workspace = await tempWorkspace();
    try {
      const ref = { id: 'crash-thread', workspace: workspace.ws };
      const crashed = await sandbox.runCell(ref, {
        code: 'import os, signal\nfor pid in os.listdir("/proc"):\n    if pid.isdigit() and int(pid) not in (1, os.getpid()):\n        try: os.kill(int(pid), signal.SIGKILL)\n        except OSError: pass\nimport time\ntime.sleep(5)',
      });
      assert.equal(crashed.status, 'killed');
      assert.match(crashed.message!, /kernel/);
      const next = await sandbox.runCell(ref, { code: 'print("fresh")' });
      assert.equal(next.output, 'fresh\n');
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
  });

  test('a missing image gives a clear unavailable result', async () => {
    const sandbox = await testSandbox({ image: 'analyst-no-such-image:never' });
    try {
      const result = await sandbox.runEphemeral({ code: 'print(1)' });
      assert.equal(result.status, 'unavailable');
      assert.match(result.message!, /analyst-no-such-image:never/);
      assert.match(result.message!, /sandbox build/);
    } finally {
      await sandbox.close();
    }
  });

  test('a missing engine gives a clear unavailable result naming what was tried', async () => {
    const endpoint = {
      socketPath: '/tmp/analyst-no-engine.sock',
      source: 'PYTHON_SANDBOX_DOCKER_HOST',
      tried: ['PYTHON_SANDBOX_DOCKER_HOST=unix:///tmp/analyst-no-engine.sock'],
    };
    const sandbox = await testSandbox({ endpoint, docker: undefined });
    const workspace = await tempWorkspace();
    try {
      const result = await sandbox.runCell(
        { id: 'no-engine', workspace: workspace.ws },
        { code: 'print(1)' },
      );
      assert.equal(result.status, 'unavailable');
      assert.match(result.message!, /no Docker engine answers at \/tmp\/analyst-no-engine\.sock/);
      assert.match(result.message!, /PYTHON_SANDBOX_DOCKER_HOST/);
      const status = await sandbox.status();
      assert.equal(status.available, false);
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
  });

  test('LABELS mark every container as Analyst’s with a lease', async () => {
    const sandbox = await testSandbox();
    const workspace = await tempWorkspace();
    try {
      await sandbox.runCell({ id: 'label-thread', workspace: workspace.ws }, { code: 'print(1)' });
      const [info] = await docker.listContainers({
        filters: { label: [`${LABELS.instance}=${sandbox.instanceId}`] },
      });
      assert.equal(info?.Labels[LABELS.managed], 'true');
      assert.equal(info?.Labels[LABELS.owner], 'label-thread');
      assert.ok(Date.parse(info!.Labels[LABELS.leaseExpiresAt]!) > Date.now());
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
  });
});
