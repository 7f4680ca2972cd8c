import { InvalidInputError } from '../../../errors/index.ts';
import { loadModelRegistry } from '../../../llm/registry.ts';
import { loadServerConfig } from '../../../server/config.ts';
import { createService } from '../../../server/service.ts';
import { numberFlag, parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage = 'analyst serve [--host 127.0.0.1] [--port 8200] [--data-dir DIR] [--models FILE]';
export const summary = 'serve the HTTP API (OpenAI-compatible chat, files, threads, exec)';

/** Serves until Ctrl-C or SIGTERM, then stops cleanly: runs cancelled, sandboxes removed. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      models: { type: 'string' },
    },
    usage,
  );
  if (positionals.length)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const config = loadServerConfig(
    { host: values.host, port: numberFlag(values.port, 'port', 0, 65535), dataDir: values['data-dir'] },
    io.env,
  );
  const registry = loadModelRegistry({ env: io.env, file: values.models });
  const service = await createService(config, { registry });
  // A promise some background work forgot to handle must not take every tenant's server down.
  const stray = (reason: unknown) => service.app.log.error({ err: reason }, 'unhandled rejection (a bug)');
  process.on('unhandledRejection', stray);
  const url = await service.listen();
  const mode = config.keys.size ? `${config.keys.size} API key(s)` : 'open mode (local, no API key)';
  io.stdout(
    `analyst serving on ${url} — ${mode}, data in ${config.dataDir}, default model ${registry.default().id}\n`,
  );
  await new Promise<void>((resolve) => {
    if (io.abortSignal.aborted) resolve();
    io.abortSignal.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  io.stderr('analyst: shutting down\n');
  await service.close();
  process.off('unhandledRejection', stray);
  return 0;
}
