import { rm } from 'node:fs/promises';
import type { Store, ThreadRecord } from '../store/store.ts';
import { LocalWorkspace } from '../workspace/index.ts';
import type { Workspace, WorkspaceStore } from '../workspace/workspace.ts';

/**
 * Threads made before workspaces had ids kept a plain directory under the data directory.
 * The first time such a thread is used, its files (regular files only, no symlink
 * followed) are copied into a new workspace, the thread points at it, and the directory
 * goes. No sandbox ever ran on the directory under this server, so nothing changes it
 * meanwhile.
 */
export async function migrateLegacyWorkspace(
  store: Store,
  workspaces: WorkspaceStore,
  thread: ThreadRecord,
): Promise<Workspace> {
  const legacy = new LocalWorkspace('legacy', thread.workspace, 'none');
  const fresh = await workspaces.create();
  for (const entry of await legacy.list({ limit: 100_000 })) {
    const file = await legacy.open(entry.path).catch(() => undefined);
    if (file) await fresh.write(entry.path, file.stream(), { exclusive: true });
  }
  await store.updateThread(thread.owner, thread.id, { workspace: fresh.id });
  await rm(thread.workspace, { recursive: true, force: true });
  thread.workspace = fresh.id;
  return fresh;
}
