import { InvalidInputError } from '../../../errors/index.ts';
import { loadModelRegistry } from '../../../llm/registry.ts';
import { parseFlags } from '../../args.ts';
import { EXIT } from '../../exit-codes.ts';
import type { CommandIO } from '../../io.ts';
import type { ChatBackend } from './backend.ts';
import { attach, runCommand } from './commands.ts';
import { HttpBackend } from './http-backend.ts';
import { startInProcess } from './in-process.ts';
import { lineInput } from './input.ts';
import { ChatSession } from './session.ts';

export const usage =
  'analyst chat [FILE…] [--url URL] [--api-key KEY] [--thread ID] [--model ID] [--data-dir DIR] [--models FILE] [--connection ID]… [--show-code]';

export const summary =
  'ask questions about your data in the terminal, against a server (--url) or one started in-process; /help inside';

/**
 * `analyst chat`: an interactive client. With --url it talks to a running server (the key
 * from --api-key or ANALYST_API_KEY); without, it starts the service in-process on
 * --data-dir (or a temporary folder). On a terminal: a prompt with history, coloured
 * sections, a spinner while a cell runs, Ctrl-C to stop a run. In a pipe: one question
 * (or command) per line, plain text. Exit 0, 1 when a piped question failed, 130 when
 * left with Ctrl-C.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      thread: { type: 'string' },
      model: { type: 'string' },
      'data-dir': { type: 'string' },
      models: { type: 'string' },
      connection: { type: 'string', multiple: true },
      'show-code': { type: 'boolean' },
    },
    usage,
  );
  if (!io.input)
    throw new InvalidInputError('analyst chat reads questions from standard input, which it does not have');
  if (values.url !== undefined && (values['data-dir'] !== undefined || values.models !== undefined))
    throw new InvalidInputError(
      '--data-dir and --models are for the in-process server: leave them out with --url',
    );
  const interactive = io.input.isTTY && io.terminal === true;
  const backend: ChatBackend = values.url
    ? new HttpBackend({ url: values.url, apiKey: values['api-key'] ?? io.env.ANALYST_API_KEY })
    : (
        await startInProcess({
          dataDir: values['data-dir'],
          registry: loadModelRegistry({ env: io.env, file: values.models }),
          env: io.env,
        })
      ).backend;
  const session = new ChatSession(
    backend,
    { write: io.stdout, color: io.color ?? false, terminal: interactive },
    {
      ...(values.model ? { model: values.model } : {}),
      ...(values.connection?.length ? { connectionIds: values.connection } : {}),
      showCode: values['show-code'] === true,
    },
  );
  const lines = lineInput(io.input);
  let leftWithCtrlC = false;
  let failed = false;
  try {
    if (interactive)
      io.stdout(session.paint('dim', `analyst chat — ${backend.location}. /help for commands.\n`));
    if (values.thread) {
      const thread = await session.open(values.thread);
      session.say(`continuing ${thread.id}${thread.title ? ` — ${thread.title}` : ''}`);
    }
    if (positionals.length) await attach(session, positionals);

    let interrupts = 0;
    let justCancelled = false;
    lines.onInterrupt(() => {
      if (session.running) {
        if (session.cancelling) {
          leftWithCtrlC = true;
          lines.close();
          return;
        }
        justCancelled = true;
        session.say(session.paint('yellow', '\nstopping the analysis… (Ctrl-C again to leave)'));
        void session
          .cancel()
          .catch((error) =>
            session.say(session.paint('red', `could not stop it: ${(error as Error).message}`)),
          );
        return;
      }
      if (lines.pendingText) {
        interrupts = 0;
        io.stdout('\n');
        lines.clearLine();
        return;
      }
      interrupts += 1;
      if (interrupts >= 2 || justCancelled) {
        leftWithCtrlC = true;
        io.stdout('\n');
        lines.close();
        return;
      }
      io.stdout(`\n${session.paint('dim', '(Ctrl-C again, /quit or Ctrl-D to leave)')}\n`);
      lines.clearLine();
    });
    // In a pipe, Ctrl-C is a signal: stop the run in progress and read no further.
    const onAbort = () => {
      leftWithCtrlC = true;
      void session.cancel().catch(() => {});
      lines.close();
    };
    if (!interactive) io.abortSignal.addEventListener('abort', onAbort, { once: true });

    for (;;) {
      const line = await lines.next(session.paint('cyan', 'analyst› '));
      if (line === undefined) break;
      const text = line.trim();
      if (!text) continue;
      interrupts = 0;
      justCancelled = false;
      try {
        if (text.startsWith('/')) {
          if ((await runCommand(session, text)) === 'quit') break;
        } else {
          const outcome = await session.ask(text);
          if (outcome !== 'completed' && outcome !== 'cancelled') failed = true;
        }
      } catch (error) {
        failed = true;
        session.say(session.paint('red', `error: ${(error as Error).message}`));
      }
    }
    io.abortSignal.removeEventListener('abort', onAbort);
  } finally {
    lines.close();
    await backend.close();
  }
  if (leftWithCtrlC) return EXIT.interrupted;
  return failed && !interactive ? EXIT.failure : EXIT.ok;
}
