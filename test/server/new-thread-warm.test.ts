import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { LoopWorkspaceStore } from '../../src/workspace/local/loop-workspace-store.ts';
import { docker, eventually } from '../helpers/sandbox.ts';
import { json, startTestServer } from './helpers.ts';

/**
 * Issue 32: with the default configuration (two warm containers, two spare workspaces) a user
 * who starts one new thread after another finds a warm container and a spare workspace each
 * time, and the server says it is ready only once its warm containers are there.
 */
test('after each new thread, a warm container and a spare workspace are ready for the next one', async () => {
  const server = await startTestServer({
    script: {
      mode: 'match',
      turns: [
        { when: { any_contains: 'CELL-' + 'RAN' }, content: '<Answer>done</Answer>' },
        { when: {}, content: "<Analyze>Count.</Analyze>\n<Code>\nprint('CELL-' + 'RAN')\n</Code>" },
      ],
    },
    env: { ANALYST_POOL_SESSION: '2', ANALYST_POOL_EPHEMERAL: '0', ANALYST_WORKSPACE_SPARES: '2' },
  });
  try {
    const readiness = async () => {
      const response = await server.fetch('/health/ready');
      const body = (await json(response)) as { sandbox: { warming?: boolean; pool: { session: number } } };
      return { code: response.status, sandbox: body.sandbox };
    };
    // Ready means warm: a 200 comes only with the warm containers there.
    await eventually(async () => (await readiness()).code === 200, 'the server is ready', 180_000, 250);
    const ready = await readiness();
    assert.equal(ready.sandbox.warming, false);
    assert.equal(ready.sandbox.pool.session, 2, 'ready once both warm containers have started');

    const { workspaces } = server.service.deps;
    const instance = (server.service.deps.sandbox as DockerSandboxManager).instanceId;
    /** This server's containers of a kind (labels stay what they were made as). */
    const containersOf = async (kind: string) =>
      (
        await docker.listContainers({
          all: true,
          filters: { label: [`${LABELS.instance}=${instance}`, `${LABELS.kind}=${kind}`] },
        })
      ).length;
    assert.ok(workspaces instanceof LoopWorkspaceStore, 'this test needs root and loop devices');
    for (let thread = 1; thread <= 2; thread++) {
      const response = await server.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'scripted',
          messages: [{ role: 'user', content: `thread ${thread}` }],
        }),
      });
      assert.equal(response.status, 200);
      const body = (await json(response)) as { choices: Array<{ message: { content: string } }> };
      const content = body.choices[0]!.message.content;
      assert.match(content, /CELL-RAN/, 'the cell ran');
      assert.match(content, /done/);
      // Refilled once the run is over (between runs, not beside it): the next new thread waits for nothing.
      await eventually(
        async () => (await readiness()).sandbox.pool.session === 2 && workspaces.sparesReady === 2,
        `the warm container and the spare workspace taken by thread ${thread} are replaced`,
        180_000,
        250,
      );
    }
    assert.equal(await containersOf('session'), 0, 'no thread started a container of its own');
    assert.equal(await containersOf('pool-session'), 4, 'two taken by the threads, two warm for the next');
    assert.equal(server.scripted!.failures.length, 0, server.scripted!.failures.join('; '));
  } finally {
    await server.close();
  }
});
