import type { FastifyInstance, FastifyReply } from 'fastify';
import { type AgentEvent, artifactsOf } from '../../agent/events.ts';
import { questionTitle } from '../../agent/prompt/instruction.ts';
import { TranscriptWriter } from '../../agent/view/transcript.ts';
import type { ChatMessage } from '../../llm/model.ts';
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
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { abortOnHangUp } from '../hang-up.ts';
import { newId } from '../ids.ts';
import { SseStream } from '../sse.ts';
import { wire } from '../wire-error.ts';

const ERROR_STATUS: Record<string, number> = { model_error: 502, model_timeout: 504 };

/**
 * POST /v1/chat/completions: OpenAI's request and response (streaming or not) with
 * DeepAnalyze's extensions — `file_ids` and `thread_id` in, `thread_id`, `files` and
 * `generated_files` out. Every input is checked before anything is created.
 */
export function registerChatRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    const owner = request.owner;
    const body = parseChatRequest(request.body);
    const entry = body.model ? deps.registry.get(body.model) : deps.registry.default();
    const model = entry.protocol === 'offline' ? undefined : deps.registry.languageModel(entry.id);
    const asked = conversationOf(body);
    const threadId = threadIdOf(body);
    const files = await Promise.all(fileIdsOf(body).map((id) => deps.threads.file(owner, id)));
    const thread = threadId ? await deps.threads.get(owner, threadId) : await deps.threads.create(owner);
    // Claimed before anything is awaited: of two requests on one thread, exactly one passes.
    const reservation = deps.runs.reserve(thread.id);
    const question = asked[asked.length - 1]!.content ?? '';
    let history: ChatMessage[];
    try {
      for (const file of files) await deps.threads.attach(thread, file);
      // A client that sends only its new question continues the thread's stored conversation.
      history = asked.length === 1 && threadId ? await storedConversation(deps, thread.id) : [];
      await deps.store.addMessage({
        id: newId('msg'),
        thread_id: thread.id,
        role: 'user',
        content: question,
        file_ids: files.map((f) => f.id),
        run_id: null,
      });
      await deps.store.touchThread(thread.id, questionTitle(question));
    } catch (error) {
      reservation.release();
      throw error;
    }

    const base = baseUrl(request, deps.config);
    const fileUrl = (path: string) => threadFileUrl(base, thread.id, path);
    const controller = abortOnHangUp(reply.raw);
    const meta = { id: newId('chatcmpl'), model: entry.id, created: Math.floor(Date.now() / 1000) };
    const events = deps.runs.start(
      {
        thread,
        conversation: [...history, ...asked],
        entry,
        model,
        fileUrl,
        abortSignal: controller.signal,
        analysis: { sampling: samplingOf(body), grounding: body.grounding ?? entry.grounding ?? 'check' },
      },
      reservation,
    );
    const linksOf = (all: AgentEvent[]): FileLink[] => [
      ...artifactsOf(all).map((a) => ({ name: a.path.split('/').pop() ?? a.path, url: fileUrl(a.path) })),
      ...deps.reports.links(thread.id, base),
    ];

    if (body.stream) {
      return streamChat(reply, events, controller, {
        meta,
        threadId: thread.id,
        includeUsage: body.stream_options?.include_usage === true,
        links: linksOf,
        fileUrl,
      });
    }

    // Not streaming: a client that hangs up cancels the run (its cell is killed).
    const all: AgentEvent[] = [];
    for await (const event of events) all.push(event);
    const end = all.find((e): e is Extract<AgentEvent, { type: 'run-end' }> => e.type === 'run-end')!;
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
  events: AsyncGenerator<AgentEvent, void>,
  controller: AbortController,
  options: {
    meta: { id: string; model: string; created: number };
    threadId: string;
    includeUsage: boolean;
    links: (all: AgentEvent[]) => FileLink[];
    fileUrl: (path: string) => string;
  },
): Promise<void> {
  reply.hijack();
  const sse = new SseStream(reply.raw, corsHeaders(reply));
  sse.onClose(() => controller.abort());
  const { meta } = options;
  await sse.send(chunk(meta, { role: 'assistant', content: '' }));
  const all: AgentEvent[] = [];
  let grounding: GroundingField | undefined;
  let end: Extract<AgentEvent, { type: 'run-end' }> | undefined;
  let error: Extract<AgentEvent, { type: 'error' }> | undefined;
  // The transcript as it grows: model text as it streams, each execution block whole.
  const transcript = new TranscriptWriter(options.fileUrl);
  // Read every event to the end, also after the client left, so the run is stored whole.
  for await (const event of events) {
    if (event.type === 'artifact-created') all.push(event);
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
  const files = options.links(all);
  await sse.send(finalChunk(meta, end, { threadId: options.threadId, files, grounding }));
  if (options.includeUsage) await sse.send(usageChunk(meta, end.usage));
  await sse.done();
}

/** CORS headers @fastify/cors set on the reply, carried over to the hijacked SSE response. */
function corsHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (name.startsWith('access-control-') && value !== undefined) headers[name] = String(value);
  }
  return headers;
}

async function storedConversation(deps: AppDeps, threadId: string): Promise<ChatMessage[]> {
  const messages = await deps.store.listMessages(threadId);
  return messages.map((m) => ({ role: m.role, content: m.content }));
}
