import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';

/**
 * Host-side access to files in a workspace that a sandbox can write to. A cell can leave
 * symlinks and odd names behind, so every path is checked as text (relative, no `..`, no
 * NUL) and then walked component by component without following any symlink.
 */

/** Validates a workspace-relative path and returns its components. */
export function workspacePathParts(relativePath: string): string[] {
  if (typeof relativePath !== 'string' || relativePath === '') {
    throw new InvalidInputError('a workspace path is required', { param: 'path' });
  }
  if (relativePath.includes('\0'))
    throw new InvalidInputError('a workspace path cannot contain NUL', { param: 'path' });
  if (relativePath.startsWith('/') || relativePath.includes('\\') || /^[a-zA-Z]:/.test(relativePath)) {
    throw new InvalidInputError(`workspace paths are relative, like data/sales.csv (got ${relativePath})`, {
      param: 'path',
    });
  }
  const parts = posix
    .normalize(relativePath)
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.some((p) => p === '..') || relativePath.split('/').includes('..')) {
    throw new InvalidInputError(`workspace path ${relativePath} leaves the workspace`, { param: 'path' });
  }
  return parts;
}

/**
 * Opens a regular file inside the workspace for reading. Any symlink on the way (or at
 * the end) is refused: O_NOFOLLOW on the last component, lstat on every directory.
 */
export async function openWorkspaceFile(workspaceDir: string, relativePath: string): Promise<FileHandle> {
  const parts = workspacePathParts(relativePath);
  let current = workspaceDir;
  for (const directory of parts.slice(0, -1)) {
    current = join(current, directory);
    const info = await lstat(current).catch(() => undefined);
    if (!info) throw new NotFoundError(`no file ${relativePath} in the workspace`, { param: 'path' });
    if (info.isSymbolicLink())
      throw new InvalidInputError(`${relativePath} goes through a symlink; refused`, { param: 'path' });
    if (!info.isDirectory())
      throw new NotFoundError(`no file ${relativePath} in the workspace`, { param: 'path' });
  }
  const target = join(current, parts[parts.length - 1]!);
  let handle: FileHandle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new InvalidInputError(`${relativePath} is a symlink; refused`, { param: 'path' });
    throw new NotFoundError(`no file ${relativePath} in the workspace`, { param: 'path' });
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw new NotFoundError(`${relativePath} is not a regular file`, { param: 'path' });
  }
  return handle;
}

/** Reads a workspace file whole, refusing symlinks and files over `maxBytes`. */
export async function readWorkspaceFile(
  workspaceDir: string,
  relativePath: string,
  maxBytes = 64 * 1024 * 1024,
): Promise<Buffer> {
  const handle = await openWorkspaceFile(workspaceDir, relativePath);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) {
      throw new InvalidInputError(`${relativePath} is ${size} bytes, over the ${maxBytes}-byte limit`, {
        param: 'path',
      });
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A regular file in a workspace listing. */
export interface WorkspaceEntry {
  path: string;
  bytes: number;
  modifiedAt: Date;
}

/** Regular files under the workspace, never following symlinks, at most `limit` of them. */
export async function listWorkspaceFiles(
  workspaceDir: string,
  options: { topLevelOnly?: boolean; limit?: number } = {},
): Promise<WorkspaceEntry[]> {
  const limit = options.limit ?? 10_000;
  const found: WorkspaceEntry[] = [];
  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= limit) return;
      const path = prefix + entry.name;
      if (entry.isFile()) {
        const info = await lstat(join(dir, entry.name)).catch(() => undefined);
        if (info?.isFile()) found.push({ path, bytes: info.size, modifiedAt: info.mtime });
      } else if (entry.isDirectory() && !options.topLevelOnly && depth < 16) {
        await walk(join(dir, entry.name), `${path}/`, depth + 1);
      }
    }
  };
  await walk(workspaceDir, '', 0);
  return found;
}
