import { SandboxBusyError } from '../sandbox/errors/sandbox-busy-error.ts';
import { hostResult } from '../sandbox/exec-result.ts';
import type { ExecResult } from '../sandbox/sandbox.ts';
import { AsyncQueue } from './async-queue.ts';
import type { RunContext } from './context.ts';
import type { AgentEvent } from './events.ts';

type Execute = (onOutput: (text: string) => void) => Promise<ExecResult>;

/**
 * Runs one cell and yields its events in order: code-start/-end, execution-start, output
 * as it streams, execution-end and one artifact-created per file. Returns the result.
 * `inText`: the model's text already holds the cell's `<Code>` section (tag protocols).
 */
export async function* cellEvents(
  cell: { round: number; cellId: string; language: 'python' | 'sql'; code: string; inText: boolean },
  execute: Execute,
): AsyncGenerator<AgentEvent, ExecResult> {
  const { round, cellId, language, code } = cell;
  yield { type: 'code-start', round, cell_id: cellId, language, in_text: cell.inText };
  yield { type: 'code-end', round, cell_id: cellId, language, code };
  yield { type: 'execution-start', round, cell_id: cellId };
  const output = new AsyncQueue<string>();
  const running = execute((text) => output.push(text)).finally(() => output.end());
  for await (const text of output) yield { type: 'execution-output', round, cell_id: cellId, text };
  const result = await running;
  yield { type: 'execution-end', round, cell_id: cellId, result };
  for (const artifact of result.artifacts)
    yield { type: 'artifact-created', round, cell_id: cellId, artifact };
  return result;
}

/** A cell in the thread's session sandbox. */
export function sessionCell(
  context: RunContext,
  code: string,
  options: { timeoutMs?: number; maxOutputBytes?: number; prelude?: string; epilogue?: string } = {},
): Execute {
  return async (onOutput) => {
    try {
      return await context.sandbox.runCell(context.session, {
        code,
        ...options,
        abortSignal: context.abortSignal,
        onOutput,
      });
    } catch (error) {
      // Every sandbox busy is a fact for the model to read, not the end of the run.
      if (error instanceof SandboxBusyError) return hostResult('unavailable', error.message);
      throw error;
    }
  };
}

/** What the model reads back after a cell: the output, and why it ended if not ok. */
export function outputForModel(result: ExecResult): string {
  const notes: string[] = [];
  if (result.status !== 'ok' && result.message) notes.push(`[${result.status}] ${result.message}`);
  const output = result.output.trimEnd();
  return [output, ...notes].filter(Boolean).join('\n') || '(no output)';
}
