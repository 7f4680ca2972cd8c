import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { InvalidInputError } from '../../../errors/index.ts';

/** A data file given on the command line, checked and ready to copy. */
export interface InputFile {
  /** Absolute path on the host. */
  source: string;
  /** Its name in the workspace (the file's base name). */
  name: string;
  bytes: number;
}

/**
 * Checks every FILE before anything is written: it exists, is a regular file (a symlink
 * to one is fine: its content is copied), is readable, and no two share a base name
 * (they are copied side by side into the workspace).
 */
export async function checkInputFiles(paths: string[]): Promise<InputFile[]> {
  const files: InputFile[] = [];
  const byName = new Map<string, string>();
  for (const path of paths) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InvalidInputError(
        code === 'ENOENT' || code === 'ENOTDIR'
          ? `no such file: ${path}`
          : `cannot read ${path}: ${code ?? (error as Error).message}`,
        { param: 'file', cause: error },
      );
    }
    if (info.isDirectory())
      throw new InvalidInputError(
        `${path} is a directory: give the data files in it instead, e.g. ${join(path, '*.csv')}`,
        {
          param: 'file',
        },
      );
    if (!info.isFile())
      throw new InvalidInputError(`${path} is not a regular file: give data files (CSV, Excel, JSON, …)`, {
        param: 'file',
      });
    try {
      await access(path, constants.R_OK);
    } catch {
      throw new InvalidInputError(`cannot read ${path}: permission denied`, { param: 'file' });
    }
    const name = basename(path);
    const earlier = byName.get(name);
    if (earlier !== undefined)
      throw new InvalidInputError(
        `${earlier} and ${path} are both named ${name}, and the workspace holds them side by side: rename one`,
        { param: 'file' },
      );
    byName.set(name, path);
    files.push({ source: resolve(path), name, bytes: info.size });
  }
  return files;
}
