import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InvalidInputError } from '../../../errors/index.ts';
import { serveWorkspaceHelper } from '../../../workspace/helper/helper-server.ts';
import { ensureLoopDeviceNodes } from '../../../workspace/helper/loop-devices.ts';
import { LoopWorkspaceStore } from '../../../workspace/index.ts';
import { numberFlag, parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage = 'analyst workspace-helper --data-dir DIR --socket PATH [--client-uid 65534] (as root)';

export const summary =
  'the root helper of the container set-up: makes, mounts and destroys workspace filesystems for an unprivileged server';

/**
 * Runs as root beside an unprivileged server (compose-python.yaml): prepares the data
 * directory for the server's uid, makes loop device nodes if the container lacks them,
 * opens a loop workspace store on `<data dir>/workspaces` (quota from
 * ANALYST_WORKSPACE_QUOTA_BYTES/FILES) and serves it on the socket until SIGTERM or Ctrl-C,
 * then unmounts every workspace it mounted.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { 'data-dir': { type: 'string' }, socket: { type: 'string' }, 'client-uid': { type: 'string' } },
    usage,
  );
  if (positionals.length)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const dataDir = values['data-dir'];
  const socketPath = values.socket;
  if (!dataDir || !socketPath)
    throw new InvalidInputError(`--data-dir and --socket are required\nusage: ${usage}`);
  const clientUid = numberFlag(values['client-uid'], 'client-uid', 1, 2 ** 31) ?? 65534;
  const quota = (name: string) => (io.env[name] ? Number(io.env[name]) : undefined);

  // The server (clientUid) owns the data directory; workspaces/ is root's, and only traversable.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const info = await stat(dataDir);
  if (info.uid !== clientUid) await chown(dataDir, clientUid, clientUid);
  await mkdir(dirname(socketPath), { recursive: true, mode: 0o711 });
  await ensureLoopDeviceNodes();
  const root = `${dataDir.replace(/\/+$/, '')}/workspaces`;
  const store = await LoopWorkspaceStore.create({
    root,
    quotaBytes: quota('ANALYST_WORKSPACE_QUOTA_BYTES'),
    quotaFiles: quota('ANALYST_WORKSPACE_QUOTA_FILES'),
  });
  await chmod(root, 0o711);
  const server = await serveWorkspaceHelper({ store, socketPath, clientUid });
  io.stdout(`analyst workspace-helper: serving ${root} on ${socketPath} for uid ${clientUid}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    io.abortSignal.addEventListener('abort', () => resolve(), { once: true });
  });
  io.stderr('analyst workspace-helper: unmounting workspaces\n');
  await server.close();
  await store.close();
  return 0;
}
