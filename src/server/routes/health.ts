import type { FastifyInstance } from 'fastify';
import { ownerOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Liveness (`/health`: ok, nothing else) and readiness (`/health/ready`). Readiness says
 * ready or not to anyone; its details (engine, image, counts, messages) only to a caller
 * with a valid key (or anyone in open mode, which serves only loopback).
 */
export function registerHealthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/health', async () => ({ status: 'ok' }));

  app.get('/health/ready', async (request, reply) => {
    const store = await deps.store.ping().then(
      () => ({ ok: true }),
      (error: Error) => ({ ok: false, message: error.message }),
    );
    const sandbox = await deps.sandbox.status();
    // A server whose execution is turned off on purpose is ready for what it serves. One whose
    // first warm containers still start is not: its first new thread would wait for one.
    const ready = store.ok && ((sandbox.available && !sandbox.warming) || deps.config.sandbox === 'off');
    reply.code(ready ? 200 : 503);
    let trusted = false;
    try {
      ownerOf(request.headers.authorization, deps.config.keys);
      trusted = true;
    } catch {
      trusted = false;
    }
    if (!trusted) return { status: ready ? 'ready' : 'not_ready' };
    return {
      status: ready ? 'ready' : 'not_ready',
      store,
      sandbox,
      workspaces: deps.workspaces.kind,
      runs: deps.runs.running,
    };
  });
}
