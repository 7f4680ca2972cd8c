import type { ReadAnswer } from './answer-reading.ts';

/** Messages between the server's preview processes (`preview-processes.ts`) and its launcher thread. */

export interface LaunchSettings {
  /** The command and arguments of one preview process (prlimit, then node and the program). */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Largest answer kept; a longer one is cut and marked. */
  maxAnswerBytes: number;
  /** The nice value of each process's session (its scheduling group), as for its processes. */
  niceness: number;
}

export type ToLauncher = { type: 'run'; id: number; job: string } | { type: 'close' };

export type FromLauncher =
  | { type: 'started'; id: number; pid: number }
  | {
      type: 'ended';
      id: number;
      code: number | null;
      signal: string | null;
      /** The answer, read and checked in the launcher thread (`answer-reading.ts`); absent when too big. */
      answer?: ReadAnswer;
      answerTooBig: boolean;
      stderr: string;
      spawnError?: string;
    };
