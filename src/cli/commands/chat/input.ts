import { createInterface, type Interface } from 'node:readline';

/** Lines typed by the person (or piped in), one question or command each. */
export interface LineInput {
  /** The next line, or undefined when input ends (Ctrl-D, end of the pipe, `close`). */
  next(prompt: string): Promise<string | undefined>;
  /** Called on each Ctrl-C typed at the terminal. */
  onInterrupt(handler: () => void): void;
  /** The text typed so far on the current line (terminals). */
  readonly pendingText: string;
  /** Drops the text typed on the current line and shows the prompt again (terminals). */
  clearLine(): void;
  close(): void;
}

/**
 * Reads lines from a stream. On a terminal it is a readline prompt with history (arrow
 * keys), and Ctrl-C arrives as an event rather than a signal; otherwise lines are read as
 * they come, with no prompt, so the command works in a pipe.
 */
export function lineInput(input: {
  stream: NodeJS.ReadableStream;
  isTTY: boolean;
  echo?: NodeJS.WritableStream;
}): LineInput {
  const terminal = input.isTTY && input.echo !== undefined;
  const rl: Interface = createInterface({
    input: input.stream,
    ...(terminal ? { output: input.echo, terminal: true, historySize: 500 } : { terminal: false }),
  });
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  const interrupts: (() => void)[] = [];
  rl.on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else lines.push(line);
  });
  rl.on('close', () => {
    ended = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  if (terminal)
    rl.on('SIGINT', () => {
      for (const handler of interrupts) handler();
    });
  return {
    next(prompt) {
      const queued = lines.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (ended) return Promise.resolve(undefined);
      if (terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    onInterrupt(handler) {
      interrupts.push(handler);
    },
    get pendingText() {
      return terminal ? rl.line : '';
    },
    clearLine() {
      if (!terminal) return;
      rl.write(null, { ctrl: true, name: 'u' });
      if (waiting) rl.prompt();
    },
    close() {
      rl.close();
    },
  };
}
