import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import {
  containerLabels,
  currentProcessIdentity,
  LABELS,
  leaseExpired,
  ownerIsGone,
} from '../../src/sandbox/docker/labels.ts';

describe('container labels and leases', () => {
  const self = currentProcessIdentity('test-instance');

  test('labels name Analyst, the kind, the owner and the lease', () => {
    const labels = containerLabels(self, 'session', 'thread-abc', new Date('2030-01-01T00:00:00Z'));
    assert.equal(labels[LABELS.managed], 'true');
    assert.equal(labels[LABELS.kind], 'session');
    assert.equal(labels[LABELS.owner], 'thread-abc');
    assert.equal(labels[LABELS.leaseExpiresAt], '2030-01-01T00:00:00.000Z');
  });

  test('a lease in the past, or an unreadable one, has expired', () => {
    const labels = containerLabels(self, 'ephemeral', 'call', new Date('2020-01-01T00:00:00Z'));
    assert.equal(leaseExpired(labels, new Date()), true);
    assert.equal(leaseExpired({}, new Date()), true);
    assert.equal(
      leaseExpired(containerLabels(self, 'session', 't', new Date(Date.now() + 60_000)), new Date()),
      false,
    );
  });

  test('this live process is not gone; an exited process is', () => {
    assert.equal(ownerIsGone(containerLabels(self, 'session', 't', new Date()), self), false);
    const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']);
    const deadPid = Number(child.stdout.toString().trim());
    const labels = {
      ...containerLabels(self, 'session', 't', new Date()),
      [LABELS.ownerPid]: String(deadPid),
    };
    assert.equal(ownerIsGone(labels, self), true);
  });

  test('a reused pid is told apart by its start time', () => {
    const labels = { ...containerLabels(self, 'session', 't', new Date()), [LABELS.ownerStart]: '1' };
    assert.equal(ownerIsGone(labels, self), true);
  });

  test('an owner on another host is never judged gone (its lease decides)', () => {
    const labels = {
      ...containerLabels(self, 'session', 't', new Date()),
      [LABELS.ownerHost]: 'elsewhere',
      [LABELS.ownerPid]: '999999',
    };
    assert.equal(ownerIsGone(labels, self), false);
  });
});
