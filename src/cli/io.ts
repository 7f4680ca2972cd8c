/** Where a command writes; injected so commands are testable in-process. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of stdin (only called when a command reads code from it). */
  readStdin: () => Promise<Buffer>;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C. */
  abortSignal: AbortSignal;
  /** Whether stdout takes ANSI colours. Default false (tests, pipes). */
  color?: boolean;
  /**
   * Standard input as a stream, whether it is a terminal, and the terminal to echo typing to
   * (for interactive commands).
   */
  input?: { stream: NodeJS.ReadableStream; isTTY: boolean; echo?: NodeJS.WritableStream };
  /** Whether stdout is a terminal (spinners and progress lines). Default false. */
  terminal?: boolean;
}

export function processIO(abortSignal: AbortSignal): CommandIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    env: process.env,
    abortSignal,
    color: wantsColor(process.env, process.stdout.isTTY === true),
    input: { stream: process.stdin, isTTY: process.stdin.isTTY === true, echo: process.stdout },
    terminal: process.stdout.isTTY === true,
  };
}

/** Colour on a terminal unless NO_COLOR is set or TERM is dumb; FORCE_COLOR turns it on anywhere. */
export function wantsColor(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}
