import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { validate } from '../validate.ts';

export const ExecBodySchema = z
  .object({
    code: z.string(),
    /** Seconds, 1–30 (default 30). */
    timeout: z.number().optional(),
    data: z.unknown().optional(),
    results: z.unknown().optional(),
    source_query_ids: z.array(z.string()).optional(),
  })
  .strict();

export const ThreadExecBodySchema = z
  .object({ code: z.string(), timeout: z.number().optional(), stateful: z.boolean().optional() })
  .strict();

const seconds = (timeout: number | undefined) =>
  timeout === undefined ? undefined : Math.round(timeout * 1000);

/** One-shot and thread execution for other agents: the body is code, the answer an ExecResult. */
export function registerExecRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/exec', async (request, reply) => {
    const body = validate(ExecBodySchema, request.body, 'the request body (a JSON object with "code")');
    const controller = abortOnHangUp(reply.raw);
    return deps.sandbox.runEphemeral({
      code: body.code,
      timeoutMs: seconds(body.timeout),
      data: body.data,
      results: body.results,
      sourceQueryIds: body.source_query_ids,
      abortSignal: controller.signal,
    });
  });

  app.post<{ Params: { id: string } }>('/v1/threads/:id/exec', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const body = validate(ThreadExecBodySchema, request.body, 'the request body (a JSON object with "code")');
    // Deleting the thread stops this cell and waits for it before the workspace goes.
    const operation = deps.threads.begin(thread.id);
    try {
      const workspace = await deps.threads.workspace(thread);
      const controller = abortOnHangUp(reply.raw);
      const signal = AbortSignal.any([controller.signal, operation.signal]);
      return await deps.sandbox.runCell(
        { id: thread.id, workspace, stateful: body.stateful },
        { code: body.code, timeoutMs: seconds(body.timeout), abortSignal: signal },
      );
    } finally {
      operation.end();
    }
  });
}
