import type { ExecResult } from '../../sandbox/sandbox.ts';
import type { Verdict } from '../suite.ts';

/** DS-1000 programs get the sandbox's full 30 s (upstream allows 120 s; its slowest task takes 5.2 s). */
export const PROGRAM_TIMEOUT_MS = 30_000;

/**
 * A DS-1000 verdict from the program's run: it passes when it ran to the end without
 * raising. A program that raised, timed out or was killed failed; a sandbox that could not
 * run it at all is an error of the environment, not of the answer.
 */
export function verdictOf(result: ExecResult): Verdict {
  const detail = {
    exec_status: result.status,
    exit_code: result.exit_code,
    duration_ms: result.duration_ms,
    output: result.output,
    output_bytes: result.output_bytes,
  };
  switch (result.status) {
    case 'ok':
      return { status: 'passed', reason: 'the program ran without raising', detail };
    case 'error':
      return {
        status: 'failed',
        reason: result.output_complete
          ? (lastLine(result.output) ?? `exit status ${result.exit_code}`)
          : `the program raised; its traceback is past the output cap (${result.output_bytes} bytes written)`,
        detail,
      };
    case 'timeout':
    case 'killed':
      return { status: 'failed', reason: result.message ?? result.status, detail };
    case 'cancelled':
    case 'unavailable':
      return { status: 'error', reason: result.message ?? result.status, detail };
  }
}

/** The exception line at the end of a traceback, e.g. `AssertionError` or `NameError: name 'x' is not defined`. */
function lastLine(output: string): string | undefined {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.at(-1);
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
