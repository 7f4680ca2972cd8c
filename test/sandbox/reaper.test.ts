import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { resolveDockerEndpoint } from '../../src/sandbox/docker/endpoint.ts';
import { containerLabels, currentProcessIdentity } from '../../src/sandbox/docker/labels.ts';
import { reapContainers } from '../../src/sandbox/docker/reaper.ts';
import { docker, TEST_IMAGE } from '../helpers/sandbox.ts';

async function exists(name: string): Promise<boolean> {
  const list = await docker.listContainers({ all: true, filters: { name: [name] } });
  return list.some((c) => c.Names?.some((n) => n === `/${name}`));
}

/** A labelled container that just sleeps, as a crashed process might leave one. */
async function leftover(labels: Record<string, string>): Promise<string> {
  const name = `analyst-test-leftover-${randomBytes(4).toString('hex')}`;
  const container = await docker.createContainer({
    name,
    Image: TEST_IMAGE,
    Cmd: ['sleep', '600'],
    Labels: labels,
    HostConfig: { NetworkMode: 'none', AutoRemove: false },
  });
  await container.start();
  return name;
}

describe('the reaper', () => {
  test('the reaper removes containers whose lease has expired', async () => {
    const other = currentProcessIdentity('another-live-instance');
    const name = await leftover(containerLabels(other, 'session', 'thread-x', new Date(Date.now() - 1000)));
    try {
      const removed = await reapContainers(docker, {
        self: currentProcessIdentity('reaper-test'),
        now: new Date(),
        inUse: new Set(),
      });
      assert.ok(removed.includes(name));
      assert.equal(await exists(name), false);
    } finally {
      await docker
        .getContainer(name)
        .remove({ force: true })
        .catch(() => {});
    }
  });

  test('the reaper leaves a live process its unexpired containers', async () => {
    const live = currentProcessIdentity('live-instance');
    const name = await leftover(
      containerLabels(live, 'session', 'thread-y', new Date(Date.now() + 3600_000)),
    );
    try {
      const removed = await reapContainers(docker, {
        self: currentProcessIdentity('reaper-test'),
        now: new Date(),
        inUse: new Set(),
      });
      assert.ok(!removed.includes(name));
      assert.equal(await exists(name), true);
    } finally {
      await docker
        .getContainer(name)
        .remove({ force: true })
        .catch(() => {});
    }
  });

  test('the reaper removes containers left by a killed process', async () => {
    // A child process labels a container as its own, then is killed with SIGKILL.
    const script = `
      import Docker from 'dockerode';
      import { containerLabels, currentProcessIdentity } from './src/sandbox/docker/labels.ts';
      const docker = new Docker({ socketPath: process.argv[1] });
      const labels = containerLabels(currentProcessIdentity('doomed'), 'session', 'thread-z', new Date(Date.now() + 3600_000));
      const c = await docker.createContainer({ name: process.argv[2], Image: process.argv[3], Cmd: ['sleep', '600'], Labels: labels, HostConfig: { NetworkMode: 'none' } });
      await c.start();
      console.log('ready');
      setInterval(() => {}, 1000);
    `;
    const name = `analyst-test-killed-${randomBytes(4).toString('hex')}`;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
        resolveDockerEndpoint().socketPath,
        name,
        TEST_IMAGE,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      const beforeKill = await reapContainers(docker, {
        self: currentProcessIdentity('reaper-test'),
        now: new Date(),
        inUse: new Set(),
      });
      assert.ok(!beforeKill.includes(name), 'a live owner keeps its container');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const removed = await reapContainers(docker, {
        self: currentProcessIdentity('reaper-test'),
        now: new Date(),
        inUse: new Set(),
      });
      assert.ok(removed.includes(name));
    } finally {
      child.kill('SIGKILL');
      await docker
        .getContainer(name)
        .remove({ force: true })
        .catch(() => {});
    }
  });
});
