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

/** The latest user message as DeepAnalyze expects it; no `# Data` when the workspace is empty. */
export function instructionPrompt(question: string, data: string): string {
  const instruction = `# Instruction\n${question.trim()}`;
  return data ? `${instruction}\n\n# Data\n${data}` : instruction;
}
