import { listWorkspaceFiles } from '../../sandbox/workspace/confined.ts';

/**
 * The `# Data` section DeepAnalyze-8B was trained on: one block per top-level workspace
 * file, `File N:` then `{"name", "size"}` as indented JSON, size in KB with one decimal.
 */
export async function dataSection(workspaceDir: string): Promise<string> {
  const files = await listWorkspaceFiles(workspaceDir, { topLevelOnly: true });
  return files
    .map((file, index) => {
      const info = JSON.stringify({ name: file.path, size: `${(file.bytes / 1024).toFixed(1)}KB` }, null, 4);
      return `File ${index + 1}:\n${info}\n\n`;
    })
    .join('');
}
