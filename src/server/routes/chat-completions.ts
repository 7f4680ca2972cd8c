import type { FastifyInstance, FastifyReply } from 'fastify';
import { type AgentEvent, artifactsOf } from '../../agent/events.ts';
import { TranscriptWriter } from '../../agent/view/transcript.ts';
import { newId } from '../../ids/api-ids.ts';
import type { StoredEvent } from '../../store/store.ts';
import {
  chunk,
  completion,
  type FileLink,
  finalChunk,
  type GroundingField,
  groundingOf,
  usageChunk,
} from '../chat/completion.ts';
import { conversationOf, fileIdsOf, parseChatRequest, samplingOf, threadIdOf } from '../chat/request.ts';
import { checkConnectionIds, connectionsForRun } from '../chat/run-connections.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { corsHeaders, SseStream } from '../sse.ts';
import { wire } from '../wire-error.ts';
import { runEventsUrl, runObject } from './runs.ts';

const ERROR_STATUS: Record<string, number> = { model_error: 502, model_timeout: 504 };

type RunEnd = Extract<AgentEvent, { type: 'run-end' }>;

/**
 * POST /v1/chat/completions: OpenAI's request and response (streaming or not) with
 * DeepAnalyze's extensions — `file_ids` and `thread_id` in, `thread_id`, `files` and
 * `generated_files` out. The run belongs to the service; this route starts it and follows
 * it. A client that hangs up cancels it (its cell is killed), unless it asked for
 * `"background": true`: then the run goes on and the response says where to follow it.
 * Every input is checked before anything is created.
 */
export function registerChatRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    const body = parseChatRequest(request.body);
    checkConnectionIds(deps, request.owner, body.connection_ids);
    const base = baseUrl(deps.config);
    const { run, thread, entry } = await deps.runs.submit({
      owner: request.owner,
      threadId: threadIdOf(body),
      messages: conversationOf(body),
      fileIds: fileIdsOf(body),
      model: body.model,
      fileUrl: (threadId, path) => threadFileUrl(base, threadId, path),
      sampling: samplingOf(body),
      grounding: body.grounding,
      connections: (thread) => connectionsForRun(deps, request.owner, thread, body.connection_ids),
    });
    const fileUrl = (path: string) => threadFileUrl(base, thread.id, path);
    const background = body.background === true;
    const hangUp = abortOnHangUp(reply.raw);
    if (!background)
      hangUp.signal.addEventListener(
        'abort',
        // On another replica's store a cancel request can fail; the run then ends on its own.
        () =>
          void deps.runs.cancel(run.id).catch((error) => request.log.warn({ err: error }, 'cancel failed')),
        { once: true },
      );
    const meta = { id: newId('chatcmpl'), model: entry.id, created: Math.floor(Date.now() / 1000) };
    const follow = {
      run_id: run.id,
      thread_id: thread.id,
      events_url: runEventsUrl(base, thread.id, run.id),
    };
    const linksOf = (artifacts: AgentEvent[]): FileLink[] => [
      ...artifactsOf(artifacts).map((a) => ({
        name: a.path.split('/').pop() ?? a.path,
        url: fileUrl(a.path),
      })),
      ...deps.reports.links(thread.id, base),
    ];
    const events = deps.runs.subscribe(run.id, { abortSignal: hangUp.signal });

    if (body.stream) {
      return streamChat(reply, events, hangUp, {
        meta,
        threadId: thread.id,
        includeUsage: body.stream_options?.include_usage === true,
        links: linksOf,
        fileUrl,
        follow: background ? follow : undefined,
      });
    }
    if (background) {
      return {
        id: meta.id,
        object: 'chat.completion',
        created: meta.created,
        model: meta.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '', thread_id: thread.id, files: [] },
            finish_reason: null,
          },
        ],
        analyst: { ...follow, status: 'running', run: runObject(run) },
      };
    }

    const all: AgentEvent[] = [];
    for await (const { event } of events) all.push(event);
    const end = all.find((e): e is RunEnd => e.type === 'run-end');
    if (!end) return reply; // the client went away; the run was cancelled and is stored
    const error = all.find((e): e is Extract<AgentEvent, { type: 'error' }> => e.type === 'error');
    if (end.status === 'failed' && error && end.transcript === '') {
      return reply
        .code(ERROR_STATUS[error.code] ?? 500)
        .send(wire(error.message, 'server_error', null, error.code));
    }
    return completion(meta, end, {
      threadId: thread.id,
      files: linksOf(all),
      attachedFiles: body.file_ids,
      grounding: groundingOf(all),
    });
  });
}

async function streamChat(
  reply: FastifyReply,
  events: AsyncGenerator<StoredEvent, void>,
  hangUp: AbortController,
  options: {
    meta: { id: string; model: string; created: number };
    threadId: string;
    includeUsage: boolean;
    links: (all: AgentEvent[]) => FileLink[];
    fileUrl: (path: string) => string;
    /** Where to follow a background run (its hang-up does not cancel it). */
    follow?: { run_id: string; thread_id: string; events_url: string };
  },
): Promise<void> {
  reply.hijack();
  const headers = corsHeaders(reply);
  if (options.follow) {
    headers['x-analyst-run-id'] = options.follow.run_id;
    headers['x-analyst-events-url'] = options.follow.events_url;
  }
  const sse = new SseStream(reply.raw, headers);
  sse.onClose(() => hangUp.abort());
  const { meta } = options;
  await sse.send(
    chunk(meta, { role: 'assistant', content: '' }, null, options.follow ? { analyst: options.follow } : {}),
  );
  const artifacts: AgentEvent[] = [];
  let grounding: GroundingField | undefined;
  let end: RunEnd | undefined;
  let error: Extract<AgentEvent, { type: 'error' }> | undefined;
  // The transcript as it grows: model text as it streams, each execution block whole.
  const transcript = new TranscriptWriter(options.fileUrl);
  for await (const { event } of events) {
    if (event.type === 'artifact-created') artifacts.push(event);
    const piece = transcript.push(event);
    if (piece) await sse.send(chunk(meta, { content: piece }));
    if (event.type === 'error') error = event;
    else if (event.type === 'run-end') end = event;
    else if (event.type === 'answer-grounding') grounding = groundingOf([event]);
  }
  if (sse.closed || !end) return;
  if (end.status === 'failed' && error) {
    // Headers are gone: the error travels in the stream, in OpenAI's shape.
    await sse.send(wire(error.message, 'server_error', null, error.code));
  }
  const files = options.links(artifacts);
  await sse.send(finalChunk(meta, end, { threadId: options.threadId, files, grounding }));
  if (options.includeUsage) await sse.send(usageChunk(meta, end.usage));
  await sse.done();
}
