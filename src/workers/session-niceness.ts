import { writeFileSync } from 'node:fs';

/**
 * Weighs a process that leads a session of its own (spawned `detached`, so that a kill
 * reaches its whole group) as background work against the server. With the kernel's
 * autogroup scheduling (`/proc/sys/kernel/sched_autogroup_enabled`, on in Debian's kernels),
 * every session is a scheduling group with an equal share of the CPU whatever the nice values
 * of its processes, which order processes only within their group: two Chromiums printing,
 * each in its session, took two thirds of the machine from the server's thread however nice
 * they ran (docs/performance.md#health-every-attack). The group's own nice value is what
 * weighs it against the server's. Without autogroup (no such file) the processes' own nice
 * values already apply. Best effort: a process already gone is left alone.
 */
export function setSessionNiceness(pid: number, niceness: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
  } catch {
    // No autogroup on this kernel, or the process has ended.
  }
}
