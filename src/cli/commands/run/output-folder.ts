import { mkdir, readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidInputError } from '../../../errors/index.ts';

/** `analyst-run-YYYYMMDD-HHMMSS`, in local time. */
export function defaultOutputName(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const date = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}`;
  const time = `${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  return `analyst-run-${date}-${time}`;
}

/**
 * Makes the output folder and returns its absolute path. A folder given with --out may
 * exist only if it is empty (a run never mixes its files with others'). The default name
 * gets a `-2`, `-3`, … suffix when a run in the same second took it.
 */
export async function createOutputFolder(out: string | undefined, now: Date): Promise<string> {
  if (out !== undefined) {
    if (out.trim() === '') throw new InvalidInputError('--out must not be empty', { param: 'out' });
    const dir = resolve(out);
    const state = await folderState(dir);
    if (state === 'not-a-folder')
      throw new InvalidInputError(`--out ${out} exists and is not a folder: choose another --out`, {
        param: 'out',
      });
    if (state === 'non-empty')
      throw new InvalidInputError(
        `--out ${out} is not empty: choose a new or empty folder, so this run's files are not mixed with others`,
        { param: 'out' },
      );
    await mkdir(dir, { recursive: true });
    return dir;
  }
  const base = resolve(defaultOutputName(now));
  for (let attempt = 1; attempt <= 100; attempt++) {
    const dir = attempt === 1 ? base : `${base}-${attempt}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if ((await folderState(dir)) === 'empty') return dir;
    }
  }
  throw new InvalidInputError(`${base} and 99 like it already exist: give a folder with --out`, {
    param: 'out',
  });
}

async function folderState(dir: string): Promise<'missing' | 'empty' | 'non-empty' | 'not-a-folder'> {
  const info = await stat(dir).catch(() => undefined);
  if (!info) return 'missing';
  if (!info.isDirectory()) return 'not-a-folder';
  return (await readdir(dir)).length === 0 ? 'empty' : 'non-empty';
}
