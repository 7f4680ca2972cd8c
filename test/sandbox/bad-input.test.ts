import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InvalidInputError } from '../../src/errors/index.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { userDirectoryWorkspace } from '../../src/workspace/index.ts';
import { containersOfInstance, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

describe('bad input to the sandbox manager', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });

  test('empty code is refused before any container starts', async () => {
    await assert.rejects(sandbox.runEphemeral({ code: '' }), InvalidInputError);
    await assert.rejects(
      sandbox.runCell({ id: 'x', workspace: workspace.ws }, { code: '  \n' }),
      InvalidInputError,
    );
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  test('code that is not valid Unicode is refused', async () => {
    await assert.rejects(sandbox.runEphemeral({ code: 'print("\udc80")' }), /not valid Unicode/);
  });

  test('a timeout of 0 or 31 s is refused', async () => {
    await assert.rejects(
      sandbox.runEphemeral({ code: 'print(1)', timeoutMs: 0 }),
      /between 1 and 30 seconds/,
    );
    await assert.rejects(
      sandbox.runEphemeral({ code: 'print(1)', timeoutMs: 31_000 }),
      /between 1 and 30 seconds/,
    );
  });

  test('a workspace path that does not exist is refused', async () => {
    await assert.rejects(
      userDirectoryWorkspace('/nonexistent/analyst/workspace'),
      (error: unknown) =>
        error instanceof InvalidInputError && /does not exist/.test((error as Error).message),
    );
  });

  test('a workspace path that is a file is refused', async () => {
    await assert.rejects(userDirectoryWorkspace('/etc/hostname'), /not a directory/);
  });

  test('data that is not JSON-serialisable is refused', async () => {
    await assert.rejects(sandbox.runEphemeral({ code: 'print(1)', data: { big: 10n } }), /JSON/);
  });

  test('oversized data is cut and reported as incomplete input', async () => {
    const small = await testSandbox({ limits: { maxInputBytes: 2000 } });
    try {
      const rows = Array.from({ length: 500 }, (_, i) => ({ rid: `r${i + 1}`, v: i }));
      const result = await small.runEphemeral({ code: 'print(len(data), data[0]["rid"])', data: rows });
      assert.equal(result.status, 'ok');
      assert.equal(result.input_complete, false);
      const kept = Number(result.output.split(' ')[0]);
      assert.ok(kept > 0 && kept < 500);
      assert.match(result.output, / r1\n$/);
    } finally {
      await small.close();
    }
  });
});
