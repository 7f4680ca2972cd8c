import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';
import { LocalWorkspace, SANDBOX_GID, SANDBOX_UID } from './local-workspace.ts';

const ID = /^ws-[0-9a-f]{24}$/;

/**
 * Workspaces as plain directories, with no quota and no mount. Safe only where no cell ever
 * writes into them: the service uses this store when execution is turned off
 * (`ANALYST_SANDBOX=off`, e.g. the Compose set-up without the engine socket), so the only
 * writer is the server itself. With execution on, the loop store is required.
 */
export class DirectoryWorkspaceStore implements WorkspaceStore {
  readonly kind = 'directory';

  constructor(private readonly root: string) {}

  async create(): Promise<Workspace> {
    const id = `ws-${randomHex(12)}`;
    await mkdir(join(this.root, id), { recursive: true, mode: 0o700 });
    return new LocalWorkspace(id, join(this.root, id), 'none');
  }

  async open(id: string): Promise<Workspace> {
    if (!ID.test(id) || !existsSync(join(this.root, id)))
      throw new NotFoundError(`no workspace ${JSON.stringify(id)}`);
    return new LocalWorkspace(id, join(this.root, id), 'none');
  }

  async destroy(id: string): Promise<void> {
    if (ID.test(id)) await rm(join(this.root, id), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}

/**
 * A directory the user chose (`analyst exec --workspace DIR`) as a workspace: its files are
 * the user's own, the host only mounts it for the sandbox. The directory is made writable
 * by the sandbox user: as root the directory itself is given to that user (its files are
 * not touched); otherwise it is opened to others for writing.
 */
export async function userDirectoryWorkspace(dir: string): Promise<Workspace> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(dir);
  } catch {
    throw new InvalidInputError(`workspace directory ${dir} does not exist: create it first`, {
      param: 'workspace',
    });
  }
  if (!info.isDirectory())
    throw new InvalidInputError(`workspace ${dir} is not a directory`, { param: 'workspace' });
  if (process.getuid?.() === 0) {
    if (info.uid !== SANDBOX_UID || info.gid !== SANDBOX_GID) await chown(dir, SANDBOX_UID, SANDBOX_GID);
  } else if ((info.mode & 0o007) !== 0o007) {
    await chmod(dir, (info.mode & 0o7777) | 0o007);
  }
  return new LocalWorkspace(`dir-${randomHex(6)}`, dir, 'none');
}
