import type { ReadTextFile } from '../../agent/grounding/evidence.ts';
import { readWorkspaceFile } from '../../sandbox/workspace/confined.ts';
import type { ThreadRecord } from '../../store/store.ts';

/**
 * How grounding reads back the text files a run wrote: through the confined reader (no
 * symlinks, nothing outside the workspace). The one place to re-point when workspaces move
 * behind the `Workspace` interface.
 */
export function workspaceTextReader(thread: ThreadRecord, maxBytes = 1024 * 1024): ReadTextFile {
  return async (path) => {
    const bytes = await readWorkspaceFile(thread.workspace_dir, path, maxBytes).catch(() => undefined);
    return bytes?.toString('utf8');
  };
}
