import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import {
  MAX_CSV_ROWS,
  PreviewQuerySchema,
  ProfileQuerySchema,
  TableCsvQuerySchema,
} from '../preview/preview.ts';
import { PreviewService } from '../preview/preview-service.ts';
import { validate } from '../validate.ts';
import { contentDisposition } from './files.ts';

type Params = { Params: { id: string; '*': string } };

/**
 * GET /v1/threads/{id}/preview/{path}?offset=&limit=&sheet=&table=&sort=&desc=&search=&filter=
 * — a page of a workspace file as JSON (`Preview`): tables, sheets, SQLite tables, Parquet,
 * JSON, text, or the kind of an image, PDF or binary; CSV, TSV and Parquet tables sorted,
 * searched and filtered (docs/spec.md#table-queries). Opened through the thread's Workspace
 * only, parsed in a bounded child process.
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
    const parts = await previews.preview(workspace, request.params['*'], query, {
      owner: thread.owner,
      abortSignal: hangUp.signal,
    });
    const bytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
    return reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-length', bytes)
      .send(Readable.from(parts, { objectMode: false }));
  });
  /** GET /v1/threads/{id}/profile/{path}?sheet=&table= — a profile of the file's table (`Profile`). */
  app.get<Params>('/v1/threads/:id/profile/*', async (request, reply) => {
    const query = validate(ProfileQuerySchema, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const hangUp = abortOnHangUp(reply.raw);
    const profile = await previews.profile(workspace, request.params['*'], query, {
      owner: thread.owner,
      abortSignal: hangUp.signal,
    });
    return reply.header('cache-control', 'no-store').send(profile);
  });
  /**
   * GET /v1/threads/{id}/table-csv/{path}?sort=&desc=&search=&filter= — the table as the
   * preview shows it, as CSV (at most MAX_CSV_ROWS rows; `x-analyst-total-rows` says how many
   * the query keeps), written by a preview process and streamed.
   */
  app.get<Params>('/v1/threads/:id/table-csv/*', async (request, reply) => {
    const query = validate(TableCsvQuerySchema, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const hangUp = abortOnHangUp(reply.raw);
    const table = await previews.csv(workspace, request.params['*'], query, {
      maxRows: MAX_CSV_ROWS,
      owner: thread.owner,
      abortSignal: hangUp.signal,
    });
    const name = `${(table.path.split('/').pop() ?? 'table').replace(/\.[^.]*$/, '')}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', contentDisposition(name))
      .header('cache-control', 'no-store')
      .header('x-analyst-rows', String(table.rows))
      .header('x-analyst-total-rows', String(table.totalRows))
      .send(table.file.createReadStream());
  });
}
