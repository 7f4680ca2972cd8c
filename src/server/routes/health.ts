import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

export function registerHealthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/health', async () => ({ status: 'ok' }));

  /** Ready when the store answers and a sandbox can be started (engine and image present). */
  app.get('/health/ready', async (_request, reply) => {
    const store = await deps.store.ping().then(
      () => ({ ok: true }),
      (error: Error) => ({ ok: false, message: error.message }),
    );
    const sandbox = await deps.sandbox.status();
    const ready = store.ok && sandbox.available;
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not_ready', store, sandbox, runs: deps.runs.running });
  });
}
