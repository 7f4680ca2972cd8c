import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { PreviewQuerySchema, ProfileQuerySchema } from '../preview/preview.ts';
import { PreviewService } from '../preview/preview-service.ts';
import { validate } from '../validate.ts';

type Params = { Params: { id: string; '*': string } };

/**
 * GET /v1/threads/{id}/preview/{path}?offset=&limit=&sheet=&table= — a page of a workspace
 * file as JSON (`Preview`): tables, sheets, SQLite tables, Parquet, JSON, text, or the kind
 * of an image, PDF or binary. Opened through the thread's Workspace only, parsed in a
 * bounded child process.
 */
export function registerPreviewRoutes(app: FastifyInstance, deps: AppDeps): void {
  const previews = new PreviewService({ scratchDir: join(deps.config.dataDir, 'preview-scratch') });
  // Before the server waits for its requests: a preview in progress ends now, not at its time limit.
  app.addHook('preClose', async () => previews.close());
  app.get<Params>('/v1/threads/:id/preview/*', async (request, reply) => {
    const query = validate(PreviewQuerySchema, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    // A client that hangs up stops its preview's process (and frees its place in the queue).
    const hangUp = abortOnHangUp(reply.raw);
    const preview = await previews.preview(workspace, request.params['*'], query, hangUp.signal);
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(preview);
  });
  /** GET /v1/threads/{id}/profile/{path}?sheet=&table= — a profile of the file's table (`Profile`). */
  app.get<Params>('/v1/threads/:id/profile/*', async (request, reply) => {
    const query = validate(ProfileQuerySchema, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const hangUp = abortOnHangUp(reply.raw);
    const profile = await previews.profile(workspace, request.params['*'], query, hangUp.signal);
    return reply.header('cache-control', 'no-store').send(profile);
  });
}
