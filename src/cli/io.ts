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
  /** Whether stderr is a terminal (progress bars redraw in place there). Default false. */
  stderrIsTTY?: boolean;
  /**
   * Standard input as a stream, whether it is a terminal, and the terminal to echo typing to
   * (for interactive commands).
   */
  input?: { stream: NodeJS.ReadableStream; isTTY: boolean; echo?: NodeJS.WritableStream };
  /** Whether stdout is a terminal (spinners and progress lines). Default false. */
  terminal?: boolean;
}

export function processIO(abortSignal: AbortSignal): CommandIO {
  const stdout = closedQuietly(process.stdout);
  const stderr = closedQuietly(process.stderr);
  return {
    stdout: (text) => stdout.write(text),
    stderr: (text) => stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    env: process.env,
    abortSignal,
    color: wantsColor(process.env, process.stdout.isTTY === true),
    stderrIsTTY: process.stderr.isTTY === true,
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

/**
 * A standard stream that a reader may close (`analyst exec --json … | head -c 100`): once it
 * is gone, what is left to write is dropped and the command ends as it would have, with no
 * EPIPE stack trace. Any other write error still surfaces.
 */
function closedQuietly(stream: NodeJS.WriteStream): { write: (text: string) => void } {
  let open = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    open = false;
  });
  return {
    write: (text) => {
      if (open && !stream.destroyed) stream.write(text);
    },
  };
}
