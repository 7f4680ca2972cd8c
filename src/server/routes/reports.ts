import type { FastifyInstance } from 'fastify';
import type { ReportFormat } from '../../report/report-service.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { validate } from '../validate.ts';
import { ReportQuerySchema } from '../wire/requests.ts';
import { contentDisposition } from './files.ts';

const TYPES: Record<ReportFormat, string> = {
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  pdf: 'application/pdf',
};

/** A thread's report (Markdown, self-contained HTML, PDF) and notebook, rendered from its events. */
export function registerReportRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { id: string } }>('/v1/threads/:id/report', async (request, reply) => {
    const { format } = validate(ReportQuerySchema, request.query ?? {}, 'the query');
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    // Links in the report point at the thread's file downloads.
    const prefix = threadFileUrl(baseUrl(deps.config), thread.id, '');
    // A client that hangs up leaves the render queue, or stops its render (and Chromium).
    const hangUp = abortOnHangUp(reply.raw);
    const body = await deps.reports.report(thread, workspace, format, prefix, {
      abortSignal: hangUp.signal,
    });
    return reply
      .type(TYPES[format])
      .header(
        'content-disposition',
        contentDisposition(`report.${format}`).replace(
          /^attachment/,
          format === 'md' ? 'attachment' : 'inline',
        ),
      )
      .header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
      .send(body);
  });

  app.get<{ Params: { id: string } }>('/v1/threads/:id/notebook', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const hangUp = abortOnHangUp(reply.raw);
    const notebook = await deps.reports.notebook(thread, workspace, { abortSignal: hangUp.signal });
    return reply
      .type('application/x-ipynb+json')
      .header('content-disposition', contentDisposition('analysis.ipynb'))
      .send(notebook);
  });
}
