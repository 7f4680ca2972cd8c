import { z } from 'zod';
import { ExecResultSchema } from '../sandbox/exec-result-schema.ts';
import { RunCostSchema } from './events.ts';
import { StoredRunStatusSchema } from './run-status.ts';

/**
 * Every object the HTTP API answers with, defined once: the routes build values of these
 * types, and /openapi.json is generated from the schemas. Times are seconds since the epoch.
 */

export { ExecResultSchema };

export const ThreadObjectSchema = z.object({
  id: z.string(),
  object: z.literal('thread'),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  title: z.string().nullable(),
  metadata: z.record(z.unknown()),
  busy: z.boolean().describe('A run is going on this thread'),
});
export type ThreadObject = z.infer<typeof ThreadObjectSchema>;

export const RunObjectSchema = z.object({
  id: z.string(),
  object: z.literal('thread.run'),
  thread_id: z.string(),
  status: StoredRunStatusSchema,
  model: z.string(),
  protocol: z.string().describe('deepanalyze, prompted, tools, offline, or cell for a cell run'),
  reason: z.string().nullable(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
  cost: RunCostSchema.nullable().describe('Model and cell time and peak cell memory; null before a run ends'),
  answer: z.string().nullable(),
  created_at: z.number().int(),
  finished_at: z.number().int().nullable(),
});
export type RunObject = z.infer<typeof RunObjectSchema>;

export const FileObjectSchema = z.object({
  id: z.string(),
  object: z.literal('file'),
  bytes: z.number().int(),
  created_at: z.number().int(),
  filename: z.string(),
  purpose: z.string(),
  status: z.literal('processed'),
});
export type FileObject = z.infer<typeof FileObjectSchema>;

export const ModelObjectSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  protocol: z.string(),
  default: z.boolean(),
  description: z.string().optional(),
});
export type ModelObject = z.infer<typeof ModelObjectSchema>;

export const MessageObjectSchema = z.object({
  id: z.string(),
  object: z.literal('thread.message'),
  created_at: z.number().int(),
  thread_id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.array(
    z.object({
      type: z.literal('text'),
      text: z.object({ value: z.string(), annotations: z.array(z.unknown()) }),
    }),
  ),
  file_ids: z.array(z.string()),
  run_id: z.string().nullable(),
  revises: z
    .string()
    .nullable()
    .optional()
    .describe(
      'The earlier question this one edits or regenerates (`from_message_id` of its run); null otherwise',
    ),
});
export type MessageObject = z.infer<typeof MessageObjectSchema>;

export const WorkspaceFileObjectSchema = z.object({
  path: z.string(),
  bytes: z.number().int(),
  modified_at: z.number().int(),
  url: z.string().describe('Download link: ANALYST_PUBLIC_URL-based, else relative to the server'),
});

export const SandboxRestartSchema = z.object({
  thread_id: z.string(),
  object: z.literal('thread.sandbox'),
  restarted: z.literal(true),
});

/** OpenAI's list envelope. */
export function listOf<T extends z.ZodTypeAny>(item: T) {
  return z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean().optional() });
}

export const DeletedSchema = z.object({ id: z.string(), object: z.string(), deleted: z.literal(true) });

export const WireErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

/** `GET /v1/threads/{id}`: the thread with its runs, oldest first. */
export const ThreadWithRunsSchema = ThreadObjectSchema.extend({ runs: z.array(RunObjectSchema) });
export type ThreadWithRuns = z.infer<typeof ThreadWithRunsSchema>;

export type WorkspaceFileObject = z.infer<typeof WorkspaceFileObjectSchema>;

/** `POST /v1/threads/{id}/files`: where an upload landed in the workspace. */
export const UploadedFileSchema = z.object({ path: z.string(), bytes: z.number().int(), url: z.string() });
export type UploadedFile = z.infer<typeof UploadedFileSchema>;

/**
 * `GET /v1/threads/{id}/events`: one page of the thread's stored events, every run's in order;
 * `last_id` is the `after` of the next page. Events are checked one by one by the client.
 */
export const EventsPageSchema = z.object({
  object: z.literal('list'),
  data: z.array(z.unknown()),
  has_more: z.boolean(),
  last_id: z.string().nullable(),
});

export type WireError = z.infer<typeof WireErrorSchema>;
