import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseDisallowedTools } from '../../../agent/tools/definitions.ts';
import { AnalystClient, ApiError } from '../../../client/index.ts';
import { ConfigurationError, InvalidInputError } from '../../../errors/index.ts';
import { loadModelRegistry } from '../../../llm/registry.ts';
import { openLocalHost } from '../../../mcp/local-host.ts';
import { createMcpServer } from '../../../mcp/server.ts';
import { relayToServer } from '../../../mcp/stdio-bridge.ts';
import { createDockerSandbox } from '../../../sandbox/docker/manager.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';

export const usage =
  'analyst mcp (--workspace DIR | --url URL [--thread ID] [--api-key KEY]) [--models FILE]';

export const summary =
  "serve Analyst's MCP tools (list_files, query, python_exec, run_analysis) over stdio, on a directory or a server's thread";

/**
 * An MCP server on stdin/stdout, for desktop agents. With `--workspace DIR` the tools work
 * on that directory in this process (sandboxes on the local engine, models from the
 * environment or --models). With `--url` they are the server's own `/mcp` tools, relayed,
 * on `--thread ID` (or a new thread) with `--api-key` (default: ANALYST_URL, ANALYST_API_KEY,
 * ANALYST_THREAD). Nothing but MCP messages goes to stdout; notes go to stderr.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      workspace: { type: 'string' },
      url: { type: 'string' },
      thread: { type: 'string' },
      'api-key': { type: 'string' },
      models: { type: 'string' },
    },
    usage,
  );
  if (positionals.length)
    throw new InvalidInputError(`unexpected argument "${positionals[0]}"\nusage: ${usage}`);
  const url = values.url ?? io.env.ANALYST_URL;
  const thread = values.thread ?? io.env.ANALYST_THREAD;
  if (values.workspace !== undefined && (values.url !== undefined || values.thread !== undefined))
    throw new InvalidInputError(`give --workspace DIR or --url/--thread, not both\nusage: ${usage}`);
  if (values.workspace === undefined && url === undefined) {
    throw new InvalidInputError(
      `say what the tools work on: --workspace DIR (a directory here) or --url URL --thread ID (a server's thread)\nusage: ${usage}`,
    );
  }
  if (values.workspace !== undefined) return serveDirectory(values.workspace, values.models, io);
  return serveRemote(url!, thread, values['api-key'] ?? io.env.ANALYST_API_KEY, io);
}

async function serveDirectory(directory: string, models: string | undefined, io: CommandIO): Promise<number> {
  const registry = loadModelRegistry({ env: io.env, file: models });
  const sandbox = await createDockerSandbox({ reapIntervalMs: 0 });
  try {
    const local = await openLocalHost({
      directory,
      sandbox,
      registry,
      disallowedTools: parseDisallowedTools(io.env.DISALLOWED_TOOLS),
    });
    try {
      const server = createMcpServer(local.host);
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
      });
      await server.connect(transport);
      io.stderr(`analyst mcp: serving ${directory} over stdio\n`);
      await Promise.race([closed, stopped(io)]);
      await server.close();
    } finally {
      await local.close();
    }
  } finally {
    await sandbox.close();
  }
  return 0;
}

async function serveRemote(
  base: string,
  threadId: string | undefined,
  apiKey: string | undefined,
  io: CommandIO,
): Promise<number> {
  let url: URL;
  try {
    url = new URL('/mcp', base);
  } catch {
    throw new InvalidInputError(`--url ${base} is not a URL, like http://127.0.0.1:8200`, { param: 'url' });
  }
  if (threadId !== undefined) {
    url.searchParams.set('thread_id', threadId);
    // Say now, in words, what the server would refuse later inside the protocol.
    await new AnalystClient({ baseUrl: base, ...(apiKey ? { apiKey } : {}) })
      .getThread(threadId)
      .catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'network')
          throw new ConfigurationError(`cannot reach the Analyst server at ${base}: ${error.message}`);
        if (error.status === 401)
          throw new ConfigurationError(
            `the server at ${base} refused the API key: pass a valid one with --api-key`,
          );
        if (error.status === 404)
          throw new InvalidInputError(`the server at ${base} has no thread ${threadId} for this key`, {
            param: 'thread',
          });
        throw new ConfigurationError(`the server at ${base} answered ${error.status}: ${error.message}`);
      });
  }
  io.stderr(`analyst mcp: relaying stdio to ${url.origin}/mcp${threadId ? ` (thread ${threadId})` : ''}\n`);
  const client = new StdioServerTransport();
  void stopped(io).then(() => client.close());
  await relayToServer({
    client,
    url,
    apiKey,
    onError: (error) => io.stderr(`analyst mcp: ${error.message}\n`),
  });
  return 0;
}

/** The client is done with us: stdin ended, or SIGTERM or Ctrl-C came (then sandboxes are removed first). */
function stopped(io: CommandIO): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once('end', () => resolve());
    process.once('SIGTERM', () => resolve());
    io.abortSignal.addEventListener('abort', () => resolve(), { once: true });
  });
}
