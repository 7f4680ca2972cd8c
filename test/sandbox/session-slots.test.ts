import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SandboxBusyError } from '../../src/sandbox/errors/sandbox-busy-error.ts';
import { mountPoints } from '../../src/workspace/local/system-commands.ts';
import {
  containersOfInstance,
  eventually,
  tempWorkspace,
  testSandbox,
  testWorkspaces,
} from '../helpers/sandbox.ts';

/**
 * Issue 14 §3 against the real engine: session containers are held only while a thread is
 * active, warm containers take any thread's workspace (a bind into their slot), and the total
 * cap answers with SandboxBusyError, never an engine error.
 */
describe('session containers on workspace slots', () => {
  test('an idle thread gives its container back; its next cell runs warm on the same workspace', async () => {
    const sandbox = await testSandbox({
      pool: { session: 1 },
      workspaces: await testWorkspaces(),
      sessionIdleMs: 300,
    });
    const workspace = await tempWorkspace();
    try {
      await eventually(async () => (await sandbox.status()).pool.session === 1, 'pool filled', 60_000);
      const ref = { id: 'idle-thread', workspace: workspace.ws };
      const first = await sandbox.runCell(ref, { code: 'open("kept.txt","w").write("kept")\nprint("ok")' });
      assert.equal(first.status, 'ok', first.message);
      assert.equal(sandbox.liveSessions().length, 1);
      await eventually(async () => (await sandbox.status()).pool.session === 1, 'pool refilled', 60_000);
      await new Promise((r) => setTimeout(r, 400));
      await sandbox.sweep();
      assert.equal(sandbox.liveSessions().length, 0, 'the idle session gave its container back');
      await eventually(
        async () => (await containersOfInstance(sandbox.instanceId)).length === 1,
        'only the warm pool container left',
      );
      const started = performance.now();
      const back = await sandbox.runCell(ref, { code: 'print(open("kept.txt").read())' });
      const elapsed = performance.now() - started;
      assert.equal(back.output, 'kept\n', back.message);
      assert.ok(elapsed < 2000, `the returning thread's first cell took ${Math.round(elapsed)} ms`);
      // Renamed just after the cell, so the engine's work is not beside it.
      await eventually(
        async () => (await containersOfInstance(sandbox.instanceId)).some((n) => n.includes('idle-thread')),
        'the warm container renamed for its thread',
      );
    } finally {
      await sandbox.close();
      await workspace.cleanup();
    }
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
    const left = [...(await mountPoints())].filter((p) => p.includes(`/slots/${sandbox.instanceId}`));
    assert.deepEqual(left, [], 'no slot stays mounted after close');
  });

  test('an attached workspace keeps nosymfollow, and a thread sees only its own files', async () => {
    const sandbox = await testSandbox({ pool: { session: 1 }, workspaces: await testWorkspaces() });
    const a = await tempWorkspace();
    const b = await tempWorkspace();
    try {
      await sandbox.runCell(
        { id: 'thread-a', workspace: a.ws },
        { code: 'open("a-secret.txt","w").write("A")' },
      );
      const options = await sandbox.runCell(
        { id: 'thread-b', workspace: b.ws },
        {
          code: [
            'import os',
            'line = [l for l in open("/proc/self/mountinfo") if l.split()[4] == "/workspace"][-1]',
            'print(sorted(os.listdir("/workspace")))',
            'print("nosymfollow" in line, "nosuid" in line, "nodev" in line)',
          ].join('\n'),
        },
      );
      assert.equal(options.output, '[]\nTrue True True\n', options.message);
    } finally {
      await sandbox.close();
      await a.cleanup();
      await b.cleanup();
    }
  });

  test('over the total cap with every sandbox busy: SandboxBusyError after a short wait', async () => {
    const sandbox = await testSandbox({
      workspaces: await testWorkspaces(),
      maxSessions: 1,
      capacityWaitMs: 500,
    });
    const a = await tempWorkspace();
    const b = await tempWorkspace();
    try {
      let printed!: () => void;
      const going = new Promise<void>((resolve) => {
        printed = resolve;
      });
      const busy = sandbox.runCell(
        { id: 'busy-a', workspace: a.ws },
        { code: 'import time\nprint("go", flush=True)\ntime.sleep(4)', onOutput: () => printed() },
      );
      await going;
      assert.ok(sandbox.liveSessions()[0]?.busy, 'the one sandbox allowed is running a cell');
      await assert.rejects(
        sandbox.runCell({ id: 'busy-b', workspace: b.ws }, { code: 'print(1)' }),
        (error: unknown) => error instanceof SandboxBusyError && /running cells/.test(error.message),
      );
      assert.equal((await busy).status, 'ok');
      const after = await sandbox.runCell({ id: 'busy-b', workspace: b.ws }, { code: 'print(2)' });
      assert.equal(after.output, '2\n', 'the idle one made room once its cell ended');
      assert.equal(sandbox.liveSessions().length, 1);
    } finally {
      await sandbox.close();
      await a.cleanup();
      await b.cleanup();
    }
  });
});
