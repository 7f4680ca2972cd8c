import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { randomHex } from '../ids/random-hex.ts';
import { ownerOf } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { API_ROUTES, openApiDocument } from './openapi.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { registerChatRoutes } from './routes/chat-completions.ts';
import { registerConnectionRoutes } from './routes/connections.ts';
import { registerExecRoutes } from './routes/exec.ts';
import { registerExportRoutes } from './routes/export.ts';
import { registerFileRoutes } from './routes/files.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerMcpRoutes } from './routes/mcp.ts';
import { registerModelRoutes } from './routes/models.ts';
import { registerPreviewRoutes } from './routes/preview.ts';
import { registerReportRoutes } from './routes/reports.ts';
import { registerRunRoutes } from './routes/runs.ts';
import { registerThreadFileRoutes } from './routes/thread-files.ts';
import { registerThreadRoutes } from './routes/threads.ts';
import { registerWebRoutes } from './routes/web.ts';
import { toWireError, wire } from './wire-error.ts';

/** Routes that need no key, from the API's one description (OpenAPI `{id}` → Fastify `:id`). */
const PUBLIC_ROUTES = new Set(
  API_ROUTES.filter((r) => r.public).map((r) => r.path.replace(/\{(\w+)\}/g, ':$1')),
);

/** Every route the app registered, as `METHOD /path` (for the test that checks the API's description). */
export const REGISTERED_ROUTES = Symbol('registered routes');

export interface AppOptions {
  /** pino options, or false for no logs (tests). */
  logger?: boolean | { level: string };
  /** The built web UI served at `/`. Default `web/dist` of this checkout. */
  webDist?: string;
}

/** The HTTP API of docs/spec.md#http-api on Fastify; every failure leaves as OpenAI's error shape. */
export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: deps.config.logLevel },
    bodyLimit: deps.config.maxBodyBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => `req-${randomHex(8)}`,
    routerOptions: { maxParamLength: 1024 },
    // Errors the router raises before any route runs (bad percent-encoding, over-long ids).
    frameworkErrors: (error, _request, reply) => {
      const { status, body } = toWireError(error);
      (reply as unknown as FastifyReply).code(status).send(body);
    },
  });
  app.decorateRequest('owner', '');
  const registered: string[] = [];
  app.decorate(REGISTERED_ROUTES, registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') registered.push(`${method} ${route.url}`);
    }
  });
  if (deps.config.corsOrigins.length) {
    await app.register(cors, {
      origin: deps.config.corsOrigins,
      credentials: false,
      exposedHeaders: ['x-request-id'],
    });
  }
  await app.register(multipart, {
    limits: { fileSize: deps.config.maxUploadBytes, files: 1, fields: 10, fieldSize: 1024 * 1024, parts: 12 },
  });

  // Every route needs a key but these: deny by default, judged on the matched route (the
  // raw URL can be percent-encoded around any prefix check).
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.routeOptions.config?.public !== true && !PUBLIC_ROUTES.has(request.routeOptions.url ?? '')) {
      request.owner = ownerOf(request.headers.authorization, deps.config.keys);
      deps.limits.checkRequest(request.owner);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toWireError(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    if (reply.sent || reply.raw.headersSent) return;
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === 'number')
      reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfter))));
    reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(
        wire(
          `no route ${request.method} ${request.url.split('?')[0]}`,
          'invalid_request_error',
          null,
          'not_found',
        ),
      );
  });

  app.get('/openapi.json', async () => openApiDocument());
  registerHealthRoutes(app, deps);
  registerModelRoutes(app, deps);
  registerFileRoutes(app, deps);
  registerChatRoutes(app, deps);
  registerThreadRoutes(app, deps);
  registerRunRoutes(app, deps);
  registerThreadFileRoutes(app, deps);
  registerReportRoutes(app, deps);
  registerExecRoutes(app, deps);
  registerAdminRoutes(app, deps);
  registerMcpRoutes(app, deps);
  registerPreviewRoutes(app, deps);
  registerExportRoutes(app, deps);
  registerConnectionRoutes(app, deps);
  registerWebRoutes(app, { dist: options.webDist });
  return app;
}
