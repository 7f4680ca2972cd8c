import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { validate } from '../validate.ts';
import { ExecBodySchema, ThreadExecBodySchema } from '../wire/requests.ts';

const seconds = (timeout: number | undefined) =>
  timeout === undefined ? undefined : Math.round(timeout * 1000);

/** One-shot and thread execution for other agents: the body is code, the answer an ExecResult. */
export function registerExecRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/exec', async (request, reply) => {
    const body = validate(ExecBodySchema, request.body, 'the request body (a JSON object with "code")');
    const release = deps.limits.takeOneShot(request.owner);
    try {
      const controller = abortOnHangUp(reply.raw);
      return await deps.sandbox.runEphemeral({
        code: body.code,
        timeoutMs: seconds(body.timeout),
        data: body.data,
        results: body.results,
        sourceQueryIds: body.source_query_ids,
        abortSignal: controller.signal,
      });
    } finally {
      release();
    }
  });

  app.post<{ Params: { id: string } }>('/v1/threads/:id/exec', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const body = validate(ThreadExecBodySchema, request.body, 'the request body (a JSON object with "code")');
    // Deleting the thread stops this cell and waits for it before the workspace goes.
    const operation = deps.threads.begin(thread.id);
    let session: (() => void) | undefined;
    try {
      await deps.limits.storedBytesLeft(request.owner);
      session = await deps.limits.admitSession(request.owner, thread.id);
      const workspace = await deps.threads.workspace(thread);
      const controller = abortOnHangUp(reply.raw);
      const signal = AbortSignal.any([controller.signal, operation.signal]);
      const result = await deps.sandbox.runCell(
        { id: thread.id, workspace, stateful: body.stateful },
        { code: body.code, timeoutMs: seconds(body.timeout), abortSignal: signal },
      );
      await deps.threads.recordUsage(thread);
      return result;
    } finally {
      session?.();
      operation.end();
    }
  });
}
