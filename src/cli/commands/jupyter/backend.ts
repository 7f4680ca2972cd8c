import { InvalidInputError } from '../../../errors/index.ts';
import { startOwnServer } from '../../../jupyter/backend.ts';
import { loadModelRegistry } from '../../../llm/registry.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage = 'analyst jupyter backend';

export const summary =
  '(started by the Jupyter kernel) a private server for a kernel with a sandbox of its own, until stdin closes';

/**
 * Prints one JSON line `{url, api_key, thread_id}` once the private server listens, then
 * serves until stdin closes (the kernel went away), SIGTERM or Ctrl-C, and removes its data.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { positionals } = parseFlags(argv, {}, usage);
  if (positionals.length)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const server = await startOwnServer(io.env, loadModelRegistry({ env: io.env }));
  io.stdout(`${JSON.stringify({ url: server.url, api_key: server.apiKey, thread_id: server.threadId })}\n`);
  await new Promise<void>((resolve) => {
    process.stdin.resume();
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
    process.once('SIGTERM', () => resolve());
    io.abortSignal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  return 0;
}
