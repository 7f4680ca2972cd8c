import { lchown } from 'node:fs/promises';
import { SANDBOX_GID, SANDBOX_UID } from './prepare-workspace.ts';

/**
 * Hands a file the host wrote into a workspace to the sandbox user, so cells can modify it
 * (as root; an unprivileged host leaves it readable, which is what its umask gives).
 * `lchown`: a cell may have swapped the path for a symlink meanwhile, and root must never
 * give the link's target — a host file — away.
 */
export async function giveToSandbox(path: string): Promise<void> {
  if (process.getuid?.() === 0) await lchown(path, SANDBOX_UID, SANDBOX_GID);
}
