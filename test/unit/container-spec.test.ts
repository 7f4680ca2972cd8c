import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sandboxContainerSpec } from '../../src/sandbox/docker/container-spec.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/limits.ts';

const base = {
  image: 'analyst-sandbox:latest',
  name: 'analyst-s-thread-1-abcd',
  kernelSource: 'print("kernel")',
  limits: DEFAULT_LIMITS,
  labels: { 'dev.analyst.managed': 'true' },
};

describe('hardened container spec', () => {
  const session = sandboxContainerSpec({
    ...base,
    workspace: { kind: 'host-directory', path: '/data/workspaces/ws-1' },
  });
  const ephemeral = sandboxContainerSpec(base);
  const host = session.HostConfig!;

  test('no network at all', () => {
    assert.equal(host.NetworkMode, 'none');
    assert.equal(session.NetworkDisabled, true);
  });
  test('runs as nobody (65534:65534)', () => assert.equal(session.User, '65534:65534'));
  test('read-only root filesystem', () => assert.equal(host.ReadonlyRootfs, true));
  test('1 CPU, 512 MB without swap, 64 processes', () => {
    assert.equal(host.NanoCpus, 1_000_000_000);
    assert.equal(host.Memory, 512 * 1024 * 1024);
    assert.equal(host.MemorySwap, 512 * 1024 * 1024);
    assert.equal(host.PidsLimit, 64);
  });
  test('every capability dropped, none added, not privileged', () => {
    assert.deepEqual(host.CapDrop, ['ALL']);
    assert.deepEqual(host.CapAdd, []);
    assert.equal(host.Privileged, false);
  });
  test('no-new-privileges and the default seccomp profile (not disabled)', () => {
    assert.deepEqual(host.SecurityOpt, ['no-new-privileges:true']);
    assert.ok(!host.SecurityOpt!.some((o) => o.includes('seccomp')));
  });
  test('the kernel is the init process (no docker-init holding the stdio a cell could open)', () =>
    assert.equal(host.Init, false));
  test('writable storage only on tmpfs /tmp and the workspace', () => {
    assert.deepEqual(Object.keys(host.Tmpfs!), ['/tmp']);
    assert.match(host.Tmpfs!['/tmp']!, /size=67108864/);
    assert.match(host.Tmpfs!['/tmp']!, /nosuid/);
    assert.deepEqual(host.Mounts, [
      {
        Type: 'bind',
        Source: '/data/workspaces/ws-1',
        Target: '/workspace',
        ReadOnly: false,
        BindOptions: { Propagation: 'rprivate' },
      },
    ]);
  });
  test('ephemeral containers mount nothing: /workspace is tmpfs owned by the sandbox user', () => {
    const ephemeralHost = ephemeral.HostConfig!;
    assert.deepEqual(ephemeralHost.Mounts, []);
    assert.deepEqual(Object.keys(ephemeralHost.Tmpfs!).sort(), ['/tmp', '/workspace']);
    assert.match(ephemeralHost.Tmpfs!['/workspace']!, /uid=65534,gid=65534/);
  });
  test('no Docker socket or other host path is mounted', () => {
    const mounted = JSON.stringify([host.Mounts, host.Binds ?? [], ephemeral.HostConfig!.Mounts]);
    assert.ok(!mounted.includes('docker.sock'));
    assert.equal(host.Binds, undefined);
  });
  test('environment holds only what the kernel needs', () => {
    const names = session.Env!.map((e) => e.split('=')[0]).sort();
    assert.deepEqual(names, [
      'HOME',
      'LANG',
      'LC_ALL',
      'MPLBACKEND',
      'MPLCONFIGDIR',
      'PATH',
      'PYTHONDONTWRITEBYTECODE',
      'PYTHONIOENCODING',
    ]);
    assert.ok(!session.Env!.some((e) => /KEY|TOKEN|SECRET|PASSWORD/i.test(e)));
  });
  test('the kernel is injected on the command line, not baked into the image', () => {
    assert.deepEqual(session.Cmd, ['python3', '-c', 'print("kernel")']);
    assert.deepEqual(session.Entrypoint, []);
  });
  test('stdin stays attached once, so the container ends when the host goes away', () => {
    assert.equal(session.OpenStdin, true);
    assert.equal(session.StdinOnce, true);
    assert.equal(session.Tty, false);
    assert.equal(host.AutoRemove, true);
  });
  test('labels are passed through', () => assert.deepEqual(session.Labels, base.labels));
  test('limits are configurable', () => {
    const custom = sandboxContainerSpec({
      ...base,
      limits: { ...DEFAULT_LIMITS, cpus: 0.5, memoryBytes: 256 * 1024 * 1024, maxProcesses: 32 },
    });
    assert.equal(custom.HostConfig!.NanoCpus, 500_000_000);
    assert.equal(custom.HostConfig!.Memory, 256 * 1024 * 1024);
    assert.equal(custom.HostConfig!.PidsLimit, 32);
  });
});

describe('task-pool containers: the preload list reaches the kernel, nothing else changes', () => {
  test('ANALYST_KERNEL_PRELOAD holds the module names; the hardening is the same', () => {
    const plain = sandboxContainerSpec(base);
    const task = sandboxContainerSpec({ ...base, preloadModules: ['numpy', 'sklearn.linear_model'] });
    assert.ok(task.Env!.includes('ANALYST_KERNEL_PRELOAD=numpy,sklearn.linear_model'));
    assert.deepEqual(
      task.Env!.filter((e) => !e.startsWith('ANALYST_KERNEL_PRELOAD=')),
      plain.Env,
    );
    assert.deepEqual(task.HostConfig, plain.HostConfig);
  });
  test('anything but a dotted module name is refused', () => {
    for (const bad of ['numpy,os', 'a b', '', '1abc', 'x;rm', 'numpy\nFOO=1'])
      assert.throws(
        () => sandboxContainerSpec({ ...base, preloadModules: [bad] }),
        /not a Python module name/,
      );
  });
});
