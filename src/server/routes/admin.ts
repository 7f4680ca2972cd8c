import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { validate } from '../validate.ts';
import { CleanupBodySchema } from '../wire/requests.ts';

/** Operations on the caller's own threads, and the sandbox's state. */
export function registerAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/admin/threads-stats', async (request) => ({
    ...(await deps.store.stats(request.owner)),
    active_runs: deps.runs.running,
  }));

  app.post('/v1/admin/cleanup-threads', async (request) => {
    const body = validate(CleanupBodySchema, request.body ?? {});
    const hours = body.older_than_hours ?? 24;
    const stale = await deps.store.staleThreads(request.owner, Date.now() - hours * 3600_000);
    const deleted: string[] = [];
    for (const thread of stale) {
      if ((await deps.runs.busyThreads([thread.id])).size) continue;
      await deps.threads.delete(thread, deps.runs);
      deleted.push(thread.id);
    }
    return { deleted, older_than_hours: hours };
  });

  app.get('/v1/admin/sandbox', async () => deps.sandbox.status());
}
