import { ConfigurationError } from '../../errors/index.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { Workspace, WorkspaceStore } from '../workspace.ts';

/**
 * Checks, at start, that a sandbox container sees a workspace's files where the server
 * wrote them. When Analyst itself runs in a container, sandboxes are its siblings: the
 * engine bind-mounts each workspace by its path *on the host*, so the data directory must
 * have the same path inside the app container and on the host, and its mounts must
 * propagate to the host. A wrong setting shows here as a sandbox that finds no marker file;
 * the error says how to fix it. `readMarker` runs a cell on the workspace that prints the
 * marker file (or what went wrong).
 */
export async function checkSandboxesSeeWorkspaces(
  store: WorkspaceStore,
  dataDir: string,
  readMarker: (workspace: Workspace, name: string) => Promise<{ ok: boolean; output: string }>,
): Promise<void> {
  const workspace = await store.create();
  try {
    const marker = randomHex(12);
    const name = '.analyst-reach-check';
    await workspace.write(name, Buffer.from(marker));
    const seen = await readMarker(workspace, name);
    if (seen.ok && seen.output.trim() === marker) return;
    throw new ConfigurationError(
      `a sandbox container does not see the workspaces this server writes (it read ${JSON.stringify(seen.output.trim().slice(0, 200))}). ` +
        `Sandboxes are mounted by the Docker engine from host paths, so ANALYST_DATA_DIR (${dataDir}) must be the data ` +
        "directory's path on the Docker host, bind-mounted at that same path into the app and the workspace helper, on a " +
        'shared mount (on the host: mount --bind DIR DIR && mount --make-rshared DIR), with propagation rshared for the ' +
        'helper and rslave for the app. compose-python.yaml does this with ANALYST_HOST_DATA_DIR',
    );
  } finally {
    await store.destroy(workspace.id).catch(() => {});
  }
}
