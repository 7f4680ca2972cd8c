import { AnalystClient, ApiError } from '../../../client/index.ts';
import { InvalidInputError } from '../../../errors/index.ts';
import { jupyterDataDir } from '../../../jupyter/data-dir.ts';
import {
  DISPLAY_NAME,
  findKernelPython,
  installKernelspec,
  KERNEL_NAME,
} from '../../../jupyter/kernelspec.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage =
  'analyst jupyter install [--url URL [--api-key KEY] [--thread ID]] [--stateless] [--python PATH] [--data-dir DIR]';

export const summary = `install the Jupyter kernel "${DISPLAY_NAME}" (kernelspec ${KERNEL_NAME}) into your Jupyter data directory`;

/**
 * Writes the kernelspec. With --url the kernel runs cells on that server (on --thread, or a
 * thread it makes), with --api-key (or ANALYST_API_KEY at run time); without, each kernel
 * starts a private server with a sandbox of its own. The server and key are checked now.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      thread: { type: 'string' },
      stateless: { type: 'boolean' },
      python: { type: 'string' },
      'data-dir': { type: 'string' },
    },
    usage,
  );
  if (positionals.length)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  if (values.url === undefined && (values.thread !== undefined || values['api-key'] !== undefined))
    throw new InvalidInputError(
      `--thread and --api-key need --url: the server they belong to\nusage: ${usage}`,
    );
  const url = values.url?.replace(/\/+$/, '');
  if (url !== undefined)
    await checkServer(url, values['api-key'] ?? io.env.ANALYST_API_KEY, values.thread, io);
  const python = findKernelPython(values.python);
  const dir = await installKernelspec(values['data-dir'] ?? jupyterDataDir(io.env), python, {
    url,
    apiKey: values['api-key'],
    thread: values.thread,
    stateful: !values.stateless,
  });
  const where = url
    ? `cells run on ${url}${values.thread ? `, thread ${values.thread}` : ''}`
    : 'each kernel starts a sandbox of its own';
  io.stdout(`installed kernelspec ${KERNEL_NAME} ("${DISPLAY_NAME}") in ${dir}: ${where}\n`);
  return 0;
}

async function checkServer(
  url: string,
  apiKey: string | undefined,
  thread: string | undefined,
  io: CommandIO,
) {
  const client = new AnalystClient({ baseUrl: url, ...(apiKey ? { apiKey } : {}) });
  try {
    if (thread) await client.getThread(thread);
    else await client.listThreads({ limit: 1 });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'network') {
      io.stderr(
        `analyst jupyter install: ${url} does not answer now (${error.message}); installing anyway\n`,
      );
      return;
    }
    if (error.status === 401)
      throw new InvalidInputError(`${url} refused the API key: pass a valid one with --api-key`, {
        param: 'api-key',
      });
    if (error.status === 404 && thread)
      throw new InvalidInputError(`${url} has no thread ${thread} for this key`, { param: 'thread' });
    throw new InvalidInputError(
      `${url} answered ${error.status} (${error.message}): is it an Analyst server?`,
    );
  }
}
