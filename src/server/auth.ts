import { UnauthorizedError } from '../errors/index.ts';
import { sha256 } from './config.ts';

export const OPEN_MODE_OWNER = 'local';

/**
 * The owner of a request: the id of its API key, or `local` in open mode. Keys are compared
 * by their SHA-256, so the lookup leaks nothing about the keys through timing.
 */
export function ownerOf(authorization: string | undefined, keys: Map<string, string>): string {
  if (keys.size === 0) return OPEN_MODE_OWNER;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) {
    throw new UnauthorizedError('an API key is required: send "Authorization: Bearer <key>"');
  }
  const owner = keys.get(sha256(match[1]!));
  if (!owner) throw new UnauthorizedError('the API key is not valid');
  return owner;
}
