import { InvalidInputError } from '../../../errors/index.ts';
import { loadScriptFile, startScriptedModel } from '../../../llm/scripted/index.ts';
import { numberFlag, parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage = 'analyst dev scripted-model --script FILE [--port N] [--host 127.0.0.1]';

export const summary =
  'serve a scripted OpenAI-compatible model (vLLM-like) for tests and demos, until Ctrl-C';

/**
 * Serves the script until `io.abortSignal` aborts. `--port 0` (the default) picks a free port;
 * the URL printed is the base URL to give Analyst (ANALYST_MODEL_URL).
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { script: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } },
    usage,
  );
  if (positionals.length > 0)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  if (values.script === undefined) throw new InvalidInputError(`--script FILE is required\nusage: ${usage}`);
  const port = numberFlag(values.port, 'port', 0, 65_535) ?? 0;
  if (!Number.isInteger(port))
    throw new InvalidInputError(`--port must be a whole number (got "${values.port}")`);
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new InvalidInputError('--host must not be empty');

  const script = await loadScriptFile(values.script);
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  try {
    model = await startScriptedModel({ script, host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE'
        ? `port ${port} is in use: pick another --port, or 0 for a free one`
        : code === 'EACCES'
          ? `not allowed to listen on port ${port}: use a port above 1023`
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? `${host} is not an address of this machine: use --host 127.0.0.1`
            : (error as Error).message;
    throw new InvalidInputError(`cannot listen on ${host}:${port}: ${reason}`, { cause: error });
  }
  io.stdout(`scripted model listening on ${model.url}\n`);
  try {
    if (!io.abortSignal.aborted)
      await new Promise<void>((resolve) =>
        io.abortSignal.addEventListener('abort', () => resolve(), { once: true }),
      );
  } finally {
    await model.close();
  }
  const chats = model.requests.filter((r) => r.path === '/v1/chat/completions').length;
  io.stderr(`scripted model stopped after ${chats} chat request(s), ${model.failures.length} failure(s)\n`);
  for (const failure of model.failures) io.stderr(`  ${failure}\n`);
  return 0;
}
