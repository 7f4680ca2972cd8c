import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import { workspaceZip } from '../services/zip-export.ts';
import { validate } from '../validate.ts';
import { contentDisposition } from './files.ts';

const ExportQuery = z
  .object({ format: z.enum(['zip'], { errorMap: () => ({ message: 'must be zip' }) }).default('zip') })
  .passthrough();

/** GET /v1/threads/{id}/export?format=zip — the whole workspace as a ZIP, streamed. */
export function registerExportRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { id: string } }>('/v1/threads/:id/export', async (request, reply) => {
    validate(ExportQuery, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const { stream } = await workspaceZip(workspace);
    return reply
      .type('application/zip')
      .header('content-disposition', contentDisposition(`${thread.id}.zip`))
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
