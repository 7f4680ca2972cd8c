import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import type { AppDeps } from '../deps.ts';
import { abortOnHangUp } from '../hang-up.ts';

const ExecBody = z
  .object({
    code: z.string(),
    /** Seconds, 1–30 (default 30). */
    timeout: z.number().optional(),
    data: z.unknown().optional(),
    results: z.unknown().optional(),
    source_query_ids: z.array(z.string()).optional(),
  })
  .strict();

const ThreadExecBody = z
  .object({ code: z.string(), timeout: z.number().optional(), stateful: z.boolean().optional() })
  .strict();

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === undefined || body === null) {
    throw new InvalidInputError('the request body is missing: send a JSON object with "code"', {
      param: null,
    });
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.join('.') || null;
  throw new InvalidInputError(`${param ? `${param}: ` : ''}${issue.message}`, { param });
}

const seconds = (timeout: number | undefined) =>
  timeout === undefined ? undefined : Math.round(timeout * 1000);

/** One-shot and thread execution for other agents: the body is code, the answer an ExecResult. */
export function registerExecRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/exec', async (request, reply) => {
    const body = parse(ExecBody, request.body);
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
    const body = parse(ThreadExecBody, request.body);
    const controller = abortOnHangUp(reply.raw);
    return deps.sandbox.runCell(
      { id: thread.id, workspaceDir: thread.workspace_dir, stateful: body.stateful },
      { code: body.code, timeoutMs: seconds(body.timeout), abortSignal: controller.signal },
    );
  });
}
