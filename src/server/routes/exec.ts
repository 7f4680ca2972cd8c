import type { FastifyInstance } from 'fastify';
import type { ExecResult } from '../../sandbox/sandbox.ts';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { corsHeaders, SseStream } from '../sse.ts';
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

  /**
   * A cell in the thread's session sandbox. With `"stream": true` the answer is SSE: an
   * `execution-output` event per piece of output as the cell writes it, then one
   * `execution-end` with the ExecResult, then the stream ends (a Jupyter kernel reads this).
   * A client that hangs up cancels the cell (a stateful one gets KeyboardInterrupt first).
   */
  app.post<{ Params: { id: string } }>('/v1/threads/:id/exec', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const body = validate(ThreadExecBodySchema, request.body, 'the request body (a JSON object with "code")');
    // Deleting the thread stops this cell and waits for it before the workspace goes.
    const operation = deps.threads.locks.beginWrite(thread.id);
    let releaseSession: (() => void) | undefined;
    try {
      await deps.limits.storedBytesLeft(request.owner);
      releaseSession = await deps.limits.admitSession(request.owner, thread.id);
      const workspace = await deps.threads.workspace(thread);
      const controller = abortOnHangUp(reply.raw);
      const signal = AbortSignal.any([controller.signal, operation.signal]);
      const session = { id: thread.id, workspace, stateful: body.stateful };
      const cell = { code: body.code, timeoutMs: seconds(body.timeout), abortSignal: signal };
      if (!body.stream) {
        const result = await deps.sandbox.runCell(session, cell);
        await deps.threads.recordUsage(thread);
        return result;
      }
      reply.hijack();
      const sse = new SseStream(reply.raw, corsHeaders(reply));
      sse.onClose(() => controller.abort());
      let result: ExecResult;
      try {
        result = await deps.sandbox.runCell(session, {
          ...cell,
          onOutput: (text) => void sse.send({ type: 'execution-output', text }),
        });
      } catch (error) {
        // Headers are sent: a bad cell (say, code too long) is reported inside the stream.
        const message = error instanceof Error ? error.message : String(error);
        await sse.send({ type: 'error', message });
        sse.end();
        return;
      }
      await deps.threads.recordUsage(thread);
      await sse.send({ type: 'execution-end', result });
      sse.end();
    } finally {
      releaseSession?.();
      operation.end();
    }
  });

  /**
   * Restarts the thread's sandbox: its container and kernel go (a stateful session's
   * variables with them), the workspace stays, and the next cell starts a fresh one.
   */
  app.post<{ Params: { id: string } }>('/v1/threads/:id/sandbox/restart', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    deps.threads.locks.assertWritable(thread.id);
    deps.threads.locks.assertNoRun(thread.id, 'restarting its sandbox');
    await deps.sandbox.closeSession(thread.id);
    return { thread_id: thread.id, object: 'thread.sandbox', restarted: true };
  });
}
