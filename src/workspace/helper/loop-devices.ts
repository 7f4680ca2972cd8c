import { existsSync } from 'node:fs';
import { findProgram, runCommand } from '../local/system-commands.ts';

/**
 * Device nodes for loop devices, in a container. A container's /dev is its own: the loop
 * devices the kernel hands out through /dev/loop-control appear on the host's /dev only, so
 * the helper makes the nodes it may be given (block major 7; the container must be allowed
 * them with `device_cgroup_rules: ["b 7:* rmw"]` and have CAP_MKNOD). Nothing happens where
 * the nodes exist already (on a host, or a container given /dev).
 */
export async function ensureLoopDeviceNodes(count = 256): Promise<void> {
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
