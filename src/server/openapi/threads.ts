import { SequencedEventSchema } from '../../contract/events.ts';
import {
  DeletedSchema,
  listOf,
  MessageObjectSchema,
  RunObjectSchema,
  ThreadObjectSchema,
} from '../wire/objects.ts';
import {
  ChatRequestSchema,
  CreateThreadSchema,
  MessageListQuerySchema,
  ReportQuerySchema,
  RunEventsQuerySchema,
  RunRequestSchema,
  ThreadListQuerySchema,
  UpdateThreadSchema,
} from '../wire/requests.ts';
import { type ApiRoute, rawAnswer } from './api-route.ts';

/**
 * Threads and their analyses: the chat completion that starts one, the thread's messages and
 * events, its runs, and the report and notebook made from its history.
 */
export const THREAD_ROUTES: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/chat/completions',
    summary: 'Run an analysis (SSE with stream: true; background: true runs on after a hang-up)',
    body: ChatRequestSchema,
    response: rawAnswer('chat.completion, or text/event-stream of chat.completion.chunk', 'application/json'),
    errors: [409, 502, 504],
  },
  {
    method: 'get',
    path: '/v1/threads',
    summary: 'List threads, newest first',
    query: ThreadListQuerySchema,
    response: listOf(ThreadObjectSchema),
  },
  {
    method: 'post',
    path: '/v1/threads',
    summary: 'Create a thread (optionally with files copied into its workspace)',
    body: CreateThreadSchema,
    response: ThreadObjectSchema,
    status: 201,
  },
  { method: 'get', path: '/v1/threads/{id}', summary: 'A thread and its runs', response: ThreadObjectSchema },
  {
    method: 'patch',
    path: '/v1/threads/{id}',
    summary: 'Rename a thread or replace its metadata',
    body: UpdateThreadSchema,
    response: ThreadObjectSchema,
    errors: [409],
  },
  {
    method: 'delete',
    path: '/v1/threads/{id}',
    summary: 'Delete a thread, its sandbox and its workspace',
    response: DeletedSchema,
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/messages',
    summary: 'Messages, oldest first (`role` keeps questions or answers)',
    query: MessageListQuerySchema,
    response: listOf(MessageObjectSchema),
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/events',
    summary: 'The stored events of every run, a page at a time (after, limit; has_more, last_id)',
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/runs',
    summary:
      'Start a run owned by the service (an analysis, or one cell); `from_message_id` edits or regenerates an earlier question',
    body: RunRequestSchema,
    response: RunObjectSchema,
    status: 201,
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/runs',
    summary: "The thread's runs",
    response: listOf(RunObjectSchema),
  },
  { method: 'get', path: '/v1/threads/{id}/runs/{run_id}', summary: 'A run', response: RunObjectSchema },
  {
    method: 'get',
    path: '/v1/threads/{id}/runs/{run_id}/events',
    summary: "A run's events (SSE, `id:` lines; resume with Last-Event-ID or ?after=N; ends after run-end)",
    query: RunEventsQuerySchema,
    response: rawAnswer(
      "text/event-stream: each event's `data:` is a run event with its sequence number `seq` (also its `id:`)",
      'text/event-stream',
      SequencedEventSchema,
    ),
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/runs/{run_id}/cancel',
    summary: 'Cancel a run',
    response: RunObjectSchema,
  },
  { method: 'post', path: '/v1/threads/{id}/cancel', summary: 'Cancel the running analysis' },
  {
    method: 'get',
    path: '/v1/threads/{id}/report',
    summary: 'Report (md, html or pdf)',
    query: ReportQuerySchema,
    response: rawAnswer('the report', 'text/markdown'),
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/notebook',
    summary: 'Jupyter notebook (nbformat 4.5)',
    response: rawAnswer('ipynb', 'application/x-ipynb+json'),
  },
];
