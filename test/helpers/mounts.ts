import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Mounts whose mount point is under `dir` (from /proc/self/mountinfo). */
export async function mountsUnder(dir: string): Promise<Array<{ point: string; options: string[] }>> {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[4]?.startsWith(`${dir}/`))
    .map((fields) => ({ point: fields[4]!, options: (fields[5] ?? '').split(',') }));
}

/** Unmounts what a killed server left mounted under `dir`, so the directory can be removed. */
export async function unmountUnder(dir: string): Promise<void> {
  for (const { point } of await mountsUnder(dir)) {
    try {
      execFileSync('umount', ['-l', point], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}

/** Loop devices whose backing file is under `dir` (from /sys/block/loop*). */
export function loopDevicesUnder(dir: string): string[] {
  const devices: string[] = [];
  for (const name of readdirSync('/sys/block').filter((n) => n.startsWith('loop'))) {
    let backing = '';
    try {
      backing = readFileSync(`/sys/block/${name}/loop/backing_file`, 'utf8').trim();
    } catch {
      continue; // not attached
    }
    if (backing.startsWith(`${dir}/`)) devices.push(`/dev/${name}`);
  }
  return devices;
}
