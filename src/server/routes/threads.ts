import type { FastifyInstance } from 'fastify';
import type { MessageRecord, ThreadRecord } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { validate } from '../validate.ts';
import type { MessageObject, ThreadObject } from '../wire/objects.ts';
import {
  CreateThreadSchema,
  MessageListQuerySchema,
  ThreadListQuerySchema,
  UpdateThreadSchema,
} from '../wire/requests.ts';
import { eventPageOf } from './event-page-query.ts';
import { listOf, pageOf } from './pagination.ts';
import { runObject } from './runs.ts';

export function threadObject(thread: ThreadRecord, busy: boolean): ThreadObject {
  return {
    id: thread.id,
    object: 'thread',
    created_at: Math.floor(thread.created_at / 1000),
    updated_at: Math.floor(thread.updated_at / 1000),
    title: thread.title,
    metadata: thread.metadata,
    busy,
  };
}

function messageObject(message: MessageRecord): MessageObject {
  return {
    id: message.id,
    object: 'thread.message',
    created_at: Math.floor(message.created_at / 1000),
    thread_id: message.thread_id,
    role: message.role,
    content: [{ type: 'text', text: { value: message.content, annotations: [] } }],
    file_ids: message.file_ids,
    run_id: message.run_id,
    revises: message.revises,
  };
}

type ThreadParams = { Params: { id: string } };

/** Threads: create, list (newest first, search by title), read, rename, delete, messages, events, cancel. */
export function registerThreadRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/threads', async (request, reply) => {
    const body = validate(CreateThreadSchema, request.body ?? {});
    const files = await Promise.all((body.file_ids ?? []).map((id) => deps.threads.file(request.owner, id)));
    const thread = await deps.threads.create(request.owner, {
      title: body.title || null,
      metadata: body.metadata,
    });
    if (files.length) await deps.threads.attach(thread, files);
    return reply.code(201).send(threadObject(thread, false));
  });

  app.get('/v1/threads', async (request) => {
    const page = pageOf(request.query);
    const { q } = validate(ThreadListQuerySchema, request.query ?? {}, 'the query');
    const threads = await deps.store.listThreads(request.owner, { ...page, limit: page.limit + 1, query: q });
    const busy = await deps.runs.busyThreads(threads.map((t) => t.id));
    return listOf(threads, page.limit, (t) => threadObject(t, busy.has(t.id)));
  });

  app.get<ThreadParams>('/v1/threads/:id', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const runs = await deps.store.listRuns(thread.id);
    const busy = deps.runs.isBusy(thread.id) || runs.some((r) => r.status === 'running');
    return { ...threadObject(thread, busy), runs: runs.map(runObject) };
  });

  app.patch<ThreadParams>('/v1/threads/:id', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const body = validate(UpdateThreadSchema, request.body);
    deps.threads.locks.assertWritable(thread.id);
    const updated = await deps.store.updateThread(request.owner, thread.id, {
      ...(body.title !== undefined ? { title: body.title || null } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    });
    const busy = await deps.runs.busyThreads([thread.id]);
    return threadObject(updated ?? thread, busy.has(thread.id));
  });

  app.delete<ThreadParams>('/v1/threads/:id', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    await deps.threads.delete(thread, deps.runs);
    return { id: thread.id, object: 'thread.deleted', deleted: true };
  });

  app.get<ThreadParams>('/v1/threads/:id/messages', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const { role } = validate(MessageListQuerySchema, request.query ?? {}, 'the query');
    const messages = await deps.store.listMessages(thread.id);
    const kept = role ? messages.filter((m) => m.role === role) : messages;
    return { object: 'list', data: kept.map(messageObject), has_more: false };
  });

  app.get<ThreadParams>('/v1/threads/:id/events', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const page = await deps.store.threadEventsPage(thread.id, eventPageOf(request.query));
    // The stored JSON goes out as it is: no parse and no re-serialization of a page.
    return reply
      .type('application/json; charset=utf-8')
      .send(
        `{"object":"list","data":[${page.bodies.join(',')}],"has_more":${page.hasMore},"last_id":${JSON.stringify(page.last ? `${page.last.runId}:${page.last.seq}` : null)}}`,
      );
  });

  app.post<ThreadParams>('/v1/threads/:id/cancel', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    return { thread_id: thread.id, cancelled: await deps.runs.cancelThread(thread.id) };
  });
}
