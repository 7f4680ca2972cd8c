import type { Workspace } from '../../workspace/workspace.ts';

/**
 * The `# Data` section DeepAnalyze-8B was trained on: one block per top-level workspace
 * file, `File N:` then `{"name", "size"}` as indented JSON, size in KB with one decimal.
 */
export async function dataSection(workspace: Workspace): Promise<string> {
  const files = await workspace.list({ topLevelOnly: true, limit: 200 });
  return files
    .map((file, index) => {
      const info = JSON.stringify({ name: file.path, size: `${(file.bytes / 1024).toFixed(1)}KB` }, null, 4);
      return `File ${index + 1}:\n${info}\n\n`;
    })
    .join('');
}
