import type { ExecStatus } from '../sandbox/sandbox.ts';

/** Process exit codes of the CLI (sysexits-style where one fits). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  unavailable: 69,
  software: 70,
  config: 78,
  timeout: 124,
  interrupted: 130,
  killed: 137,
} as const;

/** How `analyst exec` reports a cell's status to the shell. */
export function exitCodeForStatus(status: ExecStatus, cellExitCode: number | null): number {
  switch (status) {
    case 'ok':
      return EXIT.ok;
    case 'error':
      return cellExitCode !== null && cellExitCode > 0 && cellExitCode < 124 ? cellExitCode : EXIT.failure;
    case 'timeout':
      return EXIT.timeout;
    case 'killed':
      return EXIT.killed;
    case 'cancelled':
      return EXIT.interrupted;
    case 'unavailable':
      return EXIT.unavailable;
  }
}
