import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
