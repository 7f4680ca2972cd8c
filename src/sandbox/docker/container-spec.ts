import type { ContainerCreateOptions } from 'dockerode';
import type { WorkspaceMount } from '../../workspace/workspace.ts';
import type { SandboxLimits } from '../limits.ts';

/** Everything that varies between sandbox containers; the rest is fixed hardening. */
export interface SandboxContainerOptions {
  image: string;
  name: string;
  kernelSource: string;
  limits: SandboxLimits;
  labels: Record<string, string>;
  /** The workspace mounted at /workspace (session); absent means a tmpfs /workspace (ephemeral). */
  workspace?: WorkspaceMount;
  /**
   * Instead of `workspace`: a host slot directory mounted at /workspace with `rslave`
   * propagation, into which the host attaches a thread's workspace later (see workspace-slots.ts).
   */
  workspaceSlot?: string;
  /**
   * Host directory holding the socket the kernel connects to at start, mounted read-only at
   * /run/analyst. The host accepts one connection and removes the socket before any cell
   * runs. It spares every frame two hops through the Docker engine. Absent: stdin/stdout.
   */
  channelDir?: string;
  /** CPUs the container may run on (Docker cpuset, e.g. "1"); absent: any. */
  cpuset?: string;
  /**
   * Modules the kernel imports once before it forks cells (dotted names). Absent: the
   * kernel's own choice (numpy, pandas, matplotlib). Cells never see the variable.
   */
  preloadModules?: readonly string[];
}

/** A Python module name, dotted: nothing else reaches the kernel's environment. */
const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export const CHANNEL_MOUNT = '/run/analyst';
export const CHANNEL_SOCKET = 'kernel.sock';

export const SANDBOX_UID_GID = '65534:65534';

/** The environment a kernel needs, and nothing else (no host variables, no credentials). */
export const SANDBOX_ENV = [
  'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'HOME=/tmp',
  'LANG=C.UTF-8',
  'LC_ALL=C.UTF-8',
  'MPLBACKEND=Agg',
  'MPLCONFIGDIR=/tmp/matplotlib',
  'PYTHONDONTWRITEBYTECODE=1',
  'PYTHONIOENCODING=utf-8',
];

/**
 * The create options of every sandbox container (docs/spec.md#container-hardening), built in this one place.
 *
 * The kernel is the container's init process (PID 1) and reaps every orphan. Not
 * docker-init: it runs as the sandbox user and holds the container's stdio, so a cell could
 * open /proc/1/fd/1 and write into the host channel. As PID 1 the kernel is also immune to
 * signals from cells, and it is non-dumpable, so its /proc entries are closed to them.
 * `StdinOnce` closes the kernel's stdin when the host's attach ends, so it exits and
 * `AutoRemove` removes the container even if the host process dies.
 */
export function sandboxContainerSpec(options: SandboxContainerOptions): ContainerCreateOptions {
  const { limits } = options;
  const tmpfs = `rw,nosuid,nodev,size=${limits.tmpfsBytes},mode=1777`;
  const workspaceTmpfs = `rw,nosuid,nodev,size=${limits.tmpfsBytes},uid=65534,gid=65534,mode=0700`;
  return {
    name: options.name,
    Image: options.image,
    Entrypoint: [],
    Cmd: ['python3', '-c', options.kernelSource],
    User: SANDBOX_UID_GID,
    WorkingDir: '/',
    Env: [
      ...SANDBOX_ENV,
      ...(options.channelDir ? [`ANALYST_KERNEL_SOCKET=${CHANNEL_MOUNT}/${CHANNEL_SOCKET}`] : []),
      ...(options.preloadModules ? [`ANALYST_KERNEL_PRELOAD=${preloadList(options.preloadModules)}`] : []),
    ],
    Hostname: 'sandbox',
    Labels: options.labels,
    NetworkDisabled: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    HostConfig: {
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs:
        options.workspace === undefined && options.workspaceSlot === undefined
          ? { '/tmp': tmpfs, '/workspace': workspaceTmpfs }
          : { '/tmp': tmpfs },
      Mounts: [
        ...(options.workspace === undefined ? [] : [bindMount(options.workspace.path, '/workspace', false)]),
        ...(options.workspaceSlot === undefined
          ? []
          : [bindMount(options.workspaceSlot, '/workspace', false, 'rslave')]),
        ...(options.channelDir === undefined ? [] : [bindMount(options.channelDir, CHANNEL_MOUNT, true)]),
      ],
      NanoCpus: Math.round(limits.cpus * 1e9),
      ...(options.cpuset === undefined ? {} : { CpusetCpus: options.cpuset }),
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      PidsLimit: limits.maxProcesses,
      CapDrop: ['ALL'],
      CapAdd: [],
      Privileged: false,
      SecurityOpt: ['no-new-privileges:true'],
      Init: false,
      IpcMode: 'private',
      ShmSize: limits.tmpfsBytes,
      Ulimits: [
        { Name: 'nofile', Soft: 1024, Hard: 1024 },
        { Name: 'core', Soft: 0, Hard: 0 },
      ],
      AutoRemove: true,
      LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
    },
  };
}

function preloadList(modules: readonly string[]): string {
  for (const name of modules) {
    if (!MODULE_NAME.test(name)) throw new Error(`not a Python module name: ${JSON.stringify(name)}`);
  }
  return modules.join(',');
}

function bindMount(
  source: string,
  target: string,
  readOnly: boolean,
  propagation: 'rprivate' | 'rslave' = 'rprivate',
) {
  return {
    Type: 'bind' as const,
    Source: source,
    Target: target,
    ReadOnly: readOnly,
    BindOptions: { Propagation: propagation },
  };
}
