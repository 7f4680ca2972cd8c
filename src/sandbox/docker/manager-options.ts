import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { QuietTime } from '../../background/quiet-time.ts';
import type { WorkspaceStore } from '../../workspace/workspace.ts';
import type { SandboxLimits } from '../limits.ts';
import type { DockerEndpoint } from './endpoint.ts';
import type { SessionLimits } from './session-containers.ts';

export interface DockerSandboxOptions {
  /** Default: PYTHON_SANDBOX_IMAGE, else `analyst-sandbox:latest`. */
  image?: string;
  /** Default: discovered per docs/spec.md#sandbox-engine. */
  endpoint?: DockerEndpoint;
  /** An engine client; default: dockerode on the endpoint's socket. */
  docker?: Docker;
  limits?: Partial<SandboxLimits>;
  /**
   * Where allocateWorkspace() and the session pool make workspaces. Without one, sessions
   * run on the workspaces they are given and the session pool stays empty.
   */
  workspaces?: WorkspaceStore;
  /** Where session containers' kernel sockets are made (briefly). Default: <tmpdir>/analyst-run. */
  runtimeDir?: string;
  /** Warm containers kept ready. Default 0 of each (the server and CLI turn them on). */
  pool?: { session?: number; ephemeral?: number };
  /** A stateless session container unused this long is given back. Default 2 min. */
  sessionIdleMs?: number;
  /** A session container that kept variables (stateful) is given back after this long unused. Default 30 min. */
  idleTtlMs?: number;
  /** Session containers alive at once, in total. Default: ¾ of the host's memory at 256 MiB each. */
  maxSessions?: number;
  /** How long a cell waits for room under the caps before SandboxBusyError. Default 5 s. */
  capacityWaitMs?: number;
  /** Lease written on session and pool containers; they are replaced before it ends. Default 6 h. */
  leaseMs?: number;
  /** How often idle sessions are removed and leftovers reaped; 0 turns it off. Default 60 s. */
  reapIntervalMs?: number;
  /** How long a new container may take to have a warm kernel. Default 60 s. */
  startupTimeoutMs?: number;
  /** Clock in ms since the epoch; injected by tests. */
  now?: () => number;
  /** Called with background failures (pool refills, reaping). */
  onError?: (error: unknown) => void;
  /**
   * When the server runs nothing a user waits for: warm containers are started and pooled
   * containers renamed then (issue 32). Without it a refill starts a fixed delay after a take.
   */
  quiet?: QuietTime;
  /**
   * Why session cells cannot run on this host (e.g. no safe workspaces without root): each
   * one is `unavailable` with this reason. One-shot cells, which mount nothing, still run.
   */
  sessionsUnavailable?: string;
}

/** How long before its lease ends a container is replaced. */
const LEASE_MARGIN_MS = 10 * 60_000;

/** The times and caps of `DockerSandboxOptions`, with their documented defaults filled in. */
export interface ManagerTimings {
  leaseMs: number;
  /** Containers older than this are replaced: their lease nears its end. */
  maxAgeMs: number;
  runtimeDir: string;
  startupTimeoutMs: number;
  reapIntervalMs: number;
  sessions: SessionLimits;
}

export function managerTimings(options: DockerSandboxOptions): ManagerTimings {
  const leaseMs = options.leaseMs ?? 6 * 3600_000;
  const maxAgeMs = leaseMs - LEASE_MARGIN_MS;
  // A container's memory limit is a ceiling, not its use (an idle one holds far less,
  // docs/performance.md#container-rename): three quarters of the host's memory at 256 MiB each.
  const memoryShare = Math.floor((totalmem() * 0.75) / (256 * 1024 ** 2));
  return {
    leaseMs,
    maxAgeMs,
    runtimeDir: options.runtimeDir ?? join(tmpdir(), 'analyst-run'),
    startupTimeoutMs: options.startupTimeoutMs ?? 60_000,
    reapIntervalMs: options.reapIntervalMs ?? 60_000,
    sessions: {
      idleMs: options.sessionIdleMs ?? 2 * 60_000,
      statefulIdleMs: options.idleTtlMs ?? 30 * 60_000,
      maxSessions: options.maxSessions ?? Math.max(4, memoryShare),
      capacityWaitMs: options.capacityWaitMs ?? 5000,
      maxAgeMs,
    },
  };
}
