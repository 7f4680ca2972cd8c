import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CpuAssigner } from '../../src/sandbox/docker/cpu-assigner.ts';

test('containers are spread over CPUs and released CPUs are reused', () => {
  const cpus = new CpuAssigner(2);
  const a = cpus.acquire();
  const b = cpus.acquire();
  assert.notEqual(a.cpuset, b.cpuset);
  const c = cpus.acquire();
  assert.deepEqual([...cpus.counts].sort(), [1, 2]);
  a.release();
  a.release();
  const d = cpus.acquire();
  assert.equal(d.cpuset, a.cpuset);
  b.release();
  c.release();
  d.release();
  assert.deepEqual([...cpus.counts], [0, 0]);
});

test('a machine that reports no CPUs still gets one', () => {
  assert.equal(new CpuAssigner(0).acquire().cpuset, '0');
});
