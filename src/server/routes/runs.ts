import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../errors/index.ts';
import { samplingFromWire } from '../../llm/sampling.ts';
import type { RunRecord } from '../../store/store.ts';
import { conversationOf, fileIdsOf } from '../chat/request.ts';
import { connectionsForRun } from '../chat/run-connections.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { corsHeaders, SseStream } from '../sse.ts';
import { validate } from '../validate.ts';
import type { RunObject } from '../wire/objects.ts';
import { RunEventsQuerySchema, RunRequestSchema } from '../wire/requests.ts';

/** The runs API's run object. */
export function runObject(run: RunRecord): RunObject {
  return {
    id: run.id,
    object: 'thread.run',
    thread_id: run.thread_id,
    status: run.status,
    model: run.model,
    protocol: run.protocol,
    reason: run.reason,
    usage: run.usage,
    cost: run.cost,
    answer: run.answer,
    created_at: Math.floor(run.created_at / 1000),
    finished_at: run.finished_at === null ? null : Math.floor(run.finished_at / 1000),
  };
}

export function runEventsUrl(base: string, threadId: string, runId: string): string {
  return `${base}/v1/threads/${threadId}/runs/${runId}/events`;
}

const HEARTBEAT_MS = 15_000;

type RunParams = { Params: { id: string; run_id: string } };

/**
 * Runs owned by the service (docs/spec.md#http-api): start one on a thread, list and read them, follow a
 * run's events (SSE with `id:` lines, resumable with Last-Event-ID or ?after=N) and cancel
 * it. A reload, a second tab and a second client all see the same run.
 */
export function registerRunRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Params: { id: string } }>('/v1/threads/:id/runs', async (request, reply) => {
    const body = validate(RunRequestSchema, request.body);
    const base = baseUrl(deps.config);
    const { run } = await deps.runs.submit({
      owner: request.owner,
      threadId: request.params.id,
      messages: body.messages ? conversationOf({ ...body, messages: body.messages }) : [],
      fromMessageId: body.from_message_id,
      fileIds: fileIdsOf({ ...body, messages: body.messages ?? [] }),
      model: body.model,
      system: body.system,
      stateful: body.stateful,
      cell: body.cell && {
        code: body.cell.code,
        timeoutMs: body.cell.timeout === undefined ? undefined : Math.round(body.cell.timeout * 1000),
      },
      fileUrl: (threadId, path) => threadFileUrl(base, threadId, path),
      sampling: samplingFromWire(body),
      grounding: body.grounding,
      connections: (thread) => connectionsForRun(deps, request.owner, thread, body.connection_ids),
    });
    return reply.code(201).send(runObject(run));
  });

  app.get<{ Params: { id: string } }>('/v1/threads/:id/runs', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const runs = await deps.store.listRuns(thread.id);
    return { object: 'list', data: runs.map(runObject), has_more: false };
  });

  app.get<RunParams>('/v1/threads/:id/runs/:run_id', async (request) =>
    runObject(await runOf(deps, request)),
  );

  app.post<RunParams>('/v1/threads/:id/runs/:run_id/cancel', async (request) => {
    const run = await runOf(deps, request);
    await deps.runs.cancel(run.id);
    return runObject((await deps.store.getRun(run.id)) ?? run);
  });

  app.get<RunParams>('/v1/threads/:id/runs/:run_id/events', async (request, reply) => {
    const run = await runOf(deps, request);
    const query = validate(RunEventsQuerySchema, request.query ?? {}, 'the query');
    const header = request.headers['last-event-id'];
    const resumeAt =
      header !== undefined && /^-?\d+$/.test(String(header).trim()) ? Number(header) : undefined;
    const after = resumeAt ?? query.after ?? -1;
    const controller = new AbortController();
    reply.hijack();
    const sse = new SseStream(reply.raw, corsHeaders(reply));
    sse.onClose(() => controller.abort());
    const heartbeat = setInterval(() => void sse.comment('keep-alive'), HEARTBEAT_MS);
    try {
      for await (const { seq, event } of deps.runs.subscribe(run.id, {
        after,
        abortSignal: controller.signal,
      })) {
        await sse.sendWithId(seq, { seq, ...event });
        if (sse.closed) break;
      }
    } finally {
      clearInterval(heartbeat);
      sse.end();
    }
  });
}

/** The run, if it belongs to the caller's thread; NotFoundError otherwise. */
async function runOf(
  deps: AppDeps,
  request: { owner: string; params: { id: string; run_id: string } },
): Promise<RunRecord> {
  const thread = await deps.threads.get(request.owner, request.params.id);
  const run = /^run-[0-9a-f]{24}$/.test(request.params.run_id)
    ? await deps.store.getRun(request.params.run_id)
    : undefined;
  if (!run || run.thread_id !== thread.id) {
    throw new NotFoundError(`no run ${JSON.stringify(request.params.run_id)} in thread ${thread.id}`, {
      param: 'run_id',
    });
  }
  return run;
}
