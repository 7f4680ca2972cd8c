import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomHex } from '../../ids/random-hex.ts';

/**
 * Labels on every sandbox container. Docker labels cannot change after creation, so a
 * container's lease is fixed when it is made; the owning process retires its containers
 * before the lease ends, and any reaper may remove one whose lease has passed or whose
 * owning process is gone.
 */
export const LABELS = {
  managed: 'dev.analyst.managed',
  kind: 'dev.analyst.kind',
  owner: 'dev.analyst.owner',
  leaseExpiresAt: 'dev.analyst.lease-expires-at',
  instance: 'dev.analyst.instance',
  ownerHost: 'dev.analyst.owner-host',
  ownerBoot: 'dev.analyst.owner-boot',
  ownerPid: 'dev.analyst.owner-pid',
  ownerStart: 'dev.analyst.owner-start',
} as const;

/**
 * session: bound to a thread; pool-session / pool-ephemeral: warm and unclaimed; ephemeral:
 * one call; task: one worker of a task pool (many isolated programs, e.g. an evaluation).
 */
export type ContainerKind = 'session' | 'pool-session' | 'ephemeral' | 'pool-ephemeral' | 'task';

/** Who made a container: enough to tell later whether that process still lives. */
export interface ProcessIdentity {
  instance: string;
  host: string;
  boot: string;
  pid: number;
  start: string;
}

export function currentProcessIdentity(instance: string): ProcessIdentity {
  return {
    instance,
    host: hostname(),
    boot: readTrimmed('/proc/sys/kernel/random/boot_id') ?? 'unknown',
    pid: process.pid,
    start: processStartTicks(process.pid) ?? 'unknown',
  };
}

export function containerLabels(
  identity: ProcessIdentity,
  kind: ContainerKind,
  owner: string,
  leaseExpiresAt: Date,
): Record<string, string> {
  return {
    [LABELS.managed]: 'true',
    [LABELS.kind]: kind,
    [LABELS.owner]: owner,
    [LABELS.leaseExpiresAt]: leaseExpiresAt.toISOString(),
    [LABELS.instance]: identity.instance,
    [LABELS.ownerHost]: identity.host,
    [LABELS.ownerBoot]: identity.boot,
    [LABELS.ownerPid]: String(identity.pid),
    [LABELS.ownerStart]: identity.start,
  };
}

/**
 * Whether the process named by a container's labels is certainly gone. Only decidable on
 * the same host and boot; elsewhere (e.g. the server in another container) the lease decides.
 */
export function ownerIsGone(labels: Record<string, string>, self: ProcessIdentity): boolean {
  if (labels[LABELS.ownerHost] !== self.host || labels[LABELS.ownerBoot] !== self.boot) return false;
  const pid = Number(labels[LABELS.ownerPid]);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  const start = processStartTicks(pid);
  return start === undefined || start !== labels[LABELS.ownerStart];
}

export function leaseExpired(labels: Record<string, string>, now: Date): boolean {
  const expires = Date.parse(labels[LABELS.leaseExpiresAt] ?? '');
  return Number.isNaN(expires) || expires <= now.getTime();
}

/** Field 22 of /proc/<pid>/stat: start time in clock ticks, which tells a reused pid apart. */
function processStartTicks(pid: number): string | undefined {
  const stat = readTrimmed(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return afterName[19];
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A readable, unique container name: kind, owner (e.g. the thread id) and a random suffix. */
export function containerName(kind: ContainerKind, owner: string): string {
  const prefix = {
    session: 's',
    'pool-session': 'pool-s',
    ephemeral: 'e',
    'pool-ephemeral': 'pool-e',
    task: 't',
  }[kind];
  const safeOwner = owner.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 48);
  return `analyst-${prefix}-${safeOwner}-${randomHex(4)}`;
}
