import { constants, createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LoopWorkspaceStore, unsupportedReason, userDirectoryWorkspace } from '../../../workspace/index.ts';
import type { Workspace, WorkspaceStore } from '../../../workspace/workspace.ts';
import type { InputFile } from './inputs.ts';

/** The workspace of one `analyst run`, and how its files reach the output folder. */
export interface RunWorkspace {
  workspace: Workspace;
  /** Copies the workspace's files into `target` (call after the sandbox is gone), then frees it. */
  finish(target: string): Promise<void>;
}

/**
 * As root, the run's workspace is a loop-mounted filesystem of its own (quota, no symlink
 * ever followed), copied into the output folder when the run is over. Without root it is
 * the output folder's `workspace/` itself, a plain directory: safe here because the host
 * reads it only before the first cell and after the sandbox is gone, and `say` tells the
 * user so (there is no quota then).
 */
export async function openRunWorkspace(
  outputWorkspace: string,
  files: InputFile[],
  say: (text: string) => void,
): Promise<RunWorkspace> {
  const why = unsupportedReason();
  if (why) {
    say(`analyst run: ${why}; the workspace is the plain folder ${outputWorkspace} (no quota)\n`);
    await mkdir(outputWorkspace, { recursive: true });
    const workspace = await userDirectoryWorkspace(outputWorkspace);
    await fill(workspace, files);
    return { workspace, finish: async () => {} };
  }
  const root = await mkdtemp(join(tmpdir(), 'analyst-run-ws-'));
  let store: WorkspaceStore | undefined;
  try {
    store = await LoopWorkspaceStore.create({ root });
    const workspace = await store.create();
    await fill(workspace, files);
    const opened = store;
    return {
      workspace,
      async finish(target) {
        try {
          await exportFiles(workspace, target);
        } finally {
          await opened.destroy(workspace.id);
          await opened.close();
          await rm(root, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await store?.close();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function fill(workspace: Workspace, files: InputFile[]): Promise<void> {
  for (const file of files) {
    await workspace.write(file.name, createReadStream(file.source), { exclusive: true });
  }
}

/** Every regular file of the workspace, copied to the same path under `target`. */
async function exportFiles(workspace: Workspace, target: string): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of await workspace.list({ limit: 100_000 })) {
    const destination = join(target, ...entry.path.split('/'));
    await mkdir(dirname(destination), { recursive: true });
    const file = await workspace.open(entry.path).catch(() => undefined);
    if (!file) continue;
    const out = await open(
      destination,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await pipeline(file.stream(), out.createWriteStream());
    } finally {
      await out.close().catch(() => {});
    }
  }
}
