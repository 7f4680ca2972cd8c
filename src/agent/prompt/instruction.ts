/**
 * DeepAnalyze's prompt format: `# Instruction\n{question}` and, when the workspace has files,
 * `\n\n# Data\nFile 1:\n{…}`. Its own example prompts (`prompt.txt`) are already written this
 * way, some with their own `# Data`; such a prompt is used as it is, never wrapped twice.
 */

const INSTRUCTION = /^\s*#\s*Instruction\s*\n/i;
const DATA = /\n\s*#\s*Data\s*\n/i;

/** A prompt already in DeepAnalyze's format, split into its parts; undefined for plain text. */
export function parseInstructionPrompt(text: string): { instruction: string; data?: string } | undefined {
  const head = INSTRUCTION.exec(text);
  if (!head) return undefined;
  const body = text.slice(head[0].length);
  const data = DATA.exec(body);
  if (!data) return { instruction: body.trim() };
  return {
    instruction: body.slice(0, data.index).trim(),
    data: body.slice(data.index + data[0].length).trim(),
  };
}

/** The latest user message as DeepAnalyze expects it; no `# Data` when the workspace is empty. */
export function instructionPrompt(question: string, data: string): string {
  const written = parseInstructionPrompt(question);
  if (written?.data !== undefined) return question.trim();
  const instruction = `# Instruction\n${written ? written.instruction : question.trim()}`;
  return data ? `${instruction}\n\n# Data\n${data}` : instruction;
}

/**
 * A thread's title from its first question: the instruction's first line (not the
 * `# Instruction` heading, not the `# Data` listing), cut near 80 characters.
 */
export function questionTitle(question: string): string {
  const text = parseInstructionPrompt(question)?.instruction ?? question;
  const line =
    text
      .split('\n')
      .map((l) => l.replace(/^\s*#+\s*/, '').trim())
      .find((l) => l !== '') ?? '';
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > 40 ? space : 80)}…`;
}
