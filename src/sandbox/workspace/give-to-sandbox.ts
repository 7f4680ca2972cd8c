import { chown } from 'node:fs/promises';
import { SANDBOX_GID, SANDBOX_UID } from './prepare-workspace.ts';

/**
 * Hands a file the host wrote into a workspace to the sandbox user, so cells can modify it
 * (as root; an unprivileged host leaves it readable, which is what its umask gives).
 */
export async function giveToSandbox(path: string): Promise<void> {
  if (process.getuid?.() === 0) await chown(path, SANDBOX_UID, SANDBOX_GID);
}
