/** Where a command writes; injected so commands are testable in-process. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of stdin (only called when a command reads code from it). */
  readStdin: () => Promise<Buffer>;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C. */
  abortSignal: AbortSignal;
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
  };
}
