import { existsSync, readdirSync } from 'node:fs';
import { findProgram, runCommand } from '../local/system-commands.ts';

/**
 * Device nodes for loop devices, in a container. A container's /dev is its own: the loop
 * devices the kernel hands out through /dev/loop-control appear on the host's /dev only, so
 * the helper makes the nodes it may be given (block major 7; the container must be allowed
 * them with `device_cgroup_rules: ["b 7:* rmw"]` and have CAP_MKNOD). Nothing happens where
 * the nodes exist already (on a host, or a container given /dev).
 */
export async function ensureLoopDeviceNodes(count = loopDevicesWanted()): Promise<void> {
  if (!existsSync('/dev/loop-control') || existsSync('/dev/loop0')) return;
  const mknod = findProgram('mknod');
  if (!mknod) throw new Error('mknod is missing: loop device nodes cannot be made');
  const script = `i=0; while [ "$i" -lt ${count} ]; do [ -e /dev/loop$i ] || ${mknod} -m 0660 /dev/loop$i b 7 $i || exit 1; i=$((i+1)); done`;
  const result = await runCommand(findProgram('sh') ?? '/bin/sh', ['-c', script]);
  if (result.code !== 0) {
    throw new Error(
      `could not make loop device nodes (${result.stderr}): give the helper container CAP_MKNOD and device_cgroup_rules ["b 7:* rmw"]`,
    );
  }
}

/**
 * How many nodes to make: 256, or 64 more than the host's loop devices so far (sysfs shows the
 * host's, /dev only the container's): the kernel hands out the lowest free number, and with
 * 300 in use by others the next one is /dev/loop300, which needs its node.
 */
export function loopDevicesWanted(sysBlock = '/sys/block'): number {
  let highest = -1;
  try {
    for (const name of readdirSync(sysBlock)) {
      const n = /^loop(\d+)$/.exec(name)?.[1];
      if (n !== undefined) highest = Math.max(highest, Number(n));
    }
  } catch {
    // no sysfs: the default
  }
  return Math.max(256, highest + 1 + 64);
}
