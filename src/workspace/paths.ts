import { posix } from 'node:path';
import { InvalidInputError } from '../errors/index.ts';
import { unescapeName } from './name-escape.ts';

/**
 * Validates a workspace-relative path as text (relative, no `..`, no NUL, no backslash) and
 * returns its components. Paths are only ever joined below a workspace root from these.
 */
export function workspacePathParts(relativePath: string): string[] {
  if (typeof relativePath !== 'string' || relativePath === '') {
    throw new InvalidInputError('a workspace path is required', { param: 'path' });
  }
  if (relativePath.includes('\0'))
    throw new InvalidInputError('a workspace path cannot contain NUL', { param: 'path' });
  if (relativePath.startsWith('/') || /^[a-zA-Z]:/.test(relativePath)) {
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
  // A backslash only as an escape of a name's bytes (see name-escape.ts); else refused.
  const names = parts.map(unescapeName);
  if (names.some((n) => ['.', '..'].includes(n.toString()) || n.includes('/'))) {
    throw new InvalidInputError(`workspace path ${relativePath} leaves the workspace`, { param: 'path' });
  }
  if (names.some((p) => Buffer.byteLength(p) > 255)) {
    throw new InvalidInputError('a workspace path component is longer than 255 bytes', { param: 'path' });
  }
  return parts;
}
