import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { InvalidInputError } from '../../errors/index.ts';

export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

/**
 * Makes a workspace directory writable by the sandbox user (65534). As root the directory
 * itself is given to that user (its files are not touched); otherwise it is opened to
 * others for writing, since an unprivileged host user cannot give files away.
 */
export async function prepareWorkspaceDir(dir: string, options: { create?: boolean } = {}): Promise<void> {
  if (options.create) await mkdir(dir, { recursive: true, mode: 0o755 });
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(dir);
  } catch {
    throw new InvalidInputError(`workspace directory ${dir} does not exist: create it first`, {
      param: 'workspace',
    });
  }
  if (!info.isDirectory()) {
    throw new InvalidInputError(`workspace ${dir} is not a directory`, { param: 'workspace' });
  }
  if (process.getuid?.() === 0) {
    if (info.uid !== SANDBOX_UID || info.gid !== SANDBOX_GID) await chown(dir, SANDBOX_UID, SANDBOX_GID);
  } else if ((info.mode & 0o007) !== 0o007) {
    await chmod(dir, (info.mode & 0o7777) | 0o007);
  }
}
