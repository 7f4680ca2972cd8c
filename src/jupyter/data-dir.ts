import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's Jupyter data directory, as `jupyter --data-dir` finds it on Linux and macOS:
 * JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter (default ~/.local/share/jupyter; macOS
 * ~/Library/Jupyter). Kernelspecs live in its `kernels/` folder.
 */
export function jupyterDataDir(env: Record<string, string | undefined>, platform = process.platform): string {
  if (env.JUPYTER_DATA_DIR) return env.JUPYTER_DATA_DIR;
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Jupyter');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'jupyter');
}
