import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { validate } from '../validate.ts';
import { contentDisposition } from './files.ts';

const ExportQuery = z
  .object({ format: z.enum(['zip'], { errorMap: () => ({ message: 'must be zip' }) }).default('zip') })
  .passthrough();

/**
 * GET /v1/threads/{id}/export?format=zip — the whole workspace as a ZIP, streamed. The export
 * waits for its turn in a pool shared fairly by keys, and a client that hangs up stops it.
 */
export function registerExportRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { id: string } }>('/v1/threads/:id/export', async (request, reply) => {
    validate(ExportQuery, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const hangUp = abortOnHangUp(reply.raw);
    const stream = await deps.exports.zip(thread.owner, workspace, hangUp.signal);
    return reply
      .type('application/zip')
      .header('content-disposition', contentDisposition(`${thread.id}.zip`))
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
