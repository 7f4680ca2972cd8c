import type { FastifyInstance } from 'fastify';
import type { MessageRecord, ThreadRecord } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { listOf, pageOf } from './pagination.ts';

export function threadObject(thread: ThreadRecord, busy: boolean) {
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

function messageObject(message: MessageRecord) {
  return {
    id: message.id,
    object: 'thread.message',
    created_at: Math.floor(message.created_at / 1000),
    thread_id: message.thread_id,
    role: message.role,
    content: [{ type: 'text', text: { value: message.content, annotations: [] } }],
    file_ids: message.file_ids,
    run_id: message.run_id,
  };
}

type ThreadParams = { Params: { id: string } };

/** Threads: list, read, delete, their messages, runs and events, and cancel. */
export function registerThreadRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/threads', async (request) => {
    const page = pageOf(request.query);
    const threads = await deps.store.listThreads(request.owner, { ...page, limit: page.limit + 1 });
    return listOf(threads, page.limit, (t) => threadObject(t, deps.runs.isBusy(t.id)));
  });

  app.get<ThreadParams>('/v1/threads/:id', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const runs = await deps.store.listRuns(thread.id);
    return { ...threadObject(thread, deps.runs.isBusy(thread.id)), runs };
  });

  app.delete<ThreadParams>('/v1/threads/:id', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    if (deps.runs.cancel(thread.id)) await waitUntilIdle(deps, thread.id);
    await deps.threads.delete(thread);
    return { id: thread.id, object: 'thread.deleted', deleted: true };
  });

  app.get<ThreadParams>('/v1/threads/:id/messages', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const messages = await deps.store.listMessages(thread.id);
    return { object: 'list', data: messages.map(messageObject), has_more: false };
  });

  app.get<ThreadParams>('/v1/threads/:id/events', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    return { object: 'list', data: await deps.store.threadEvents(thread.id) };
  });

  app.post<ThreadParams>('/v1/threads/:id/cancel', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    return { thread_id: thread.id, cancelled: deps.runs.cancel(thread.id) };
  });
}

async function waitUntilIdle(deps: AppDeps, threadId: string): Promise<void> {
  for (let i = 0; i < 100 && deps.runs.isBusy(threadId); i++) await new Promise((r) => setTimeout(r, 50));
}
