import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidInputError, NotFoundError, UnauthorizedError } from '../../errors/index.ts';
import { createMcpServer } from '../../mcp/server.ts';
import type { AppDeps } from '../deps.ts';
import { serviceHost } from '../mcp-host.ts';
import { validate } from '../validate.ts';
import { McpQuerySchema } from '../wire/requests.ts';

/** An MCP session nobody used for this long is closed. */
const IDLE_TTL_MS = 30 * 60_000;
/** Open sessions one owner may have; opening another closes their least recently used one. */
const SESSIONS_PER_OWNER = 32;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

interface Session {
  id: string;
  owner: string;
  transport: StreamableHTTPServerTransport;
  close: () => Promise<void>;
  lastUsedAt: number;
}

/**
 * MCP over Streamable HTTP at `/mcp` (docs/spec.md#front-ends), behind the same API keys as the rest of the
 * API: `POST /mcp` with an `initialize` request opens a session (its id comes back in
 * `Mcp-Session-Id`), bound to the caller's key and to one thread of theirs — `?thread_id=`
 * or a new one — and every later request of the session must come with the same key.
 * `GET /mcp` is the session's notification stream, `DELETE /mcp` ends it.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: AppDeps): void {
  const sessions = new Map<string, Session>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const session of sessions.values())
      if (now - session.lastUsedAt > IDLE_TTL_MS) void session.close().catch(() => {});
  }, 60_000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.allSettled([...sessions.values()].map((s) => s.close()));
  });

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    // In open mode (no keys, loopback only) a page that rebinds its DNS name to 127.0.0.1
    // could reach this; the Host header it must send gives it away.
    if (deps.config.keys.size === 0) {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
      if (!LOOPBACK_HOSTS.has(host))
        throw new UnauthorizedError(`MCP in open mode answers only loopback Host headers (got "${host}")`);
    }
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another key's session is as unknown as a closed one.
      if (!session || session.owner !== request.owner)
        throw new NotFoundError('no such MCP session: it ended or was never opened; initialize a new one', {
          param: 'mcp-session-id',
        });
      session.lastUsedAt = Date.now();
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(request.body)) {
      throw new InvalidInputError(
        'an MCP session starts with POST /mcp carrying an initialize request; later requests send its Mcp-Session-Id header',
        { param: 'mcp-session-id' },
      );
    }
    const { thread_id: threadId } = validate(McpQuerySchema, request.query ?? {}, 'the query');
    if (threadId !== undefined) await deps.threads.get(request.owner, threadId);
    const owner = request.owner;
    const server = createMcpServer(serviceHost(deps, owner, threadId));
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = {
          id,
          owner,
          transport,
          lastUsedAt: Date.now(),
          close: async () => {
            sessions.delete(id);
            await server.close();
          },
        };
        sessions.set(id, session);
        limitSessions(sessions, owner);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (session) sessions.delete(session.id);
    };
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };

  app.post('/mcp', handle);
  app.get('/mcp', handle);
  app.delete('/mcp', handle);
}

function limitSessions(sessions: Map<string, Session>, owner: string): void {
  const own = [...sessions.values()].filter((s) => s.owner === owner);
  if (own.length <= SESSIONS_PER_OWNER) return;
  own.sort((a, b) => a.lastUsedAt - b.lastUsedAt);
  for (const session of own.slice(0, own.length - SESSIONS_PER_OWNER)) void session.close().catch(() => {});
}
