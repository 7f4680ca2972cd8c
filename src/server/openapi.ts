import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { SequencedEventSchema } from '../contract/events.ts';
import { PreviewSchema } from '../contract/preview.ts';
import { ProfileSchema } from '../contract/profile.ts';
import { PreviewQuerySchema, ProfileQuerySchema, TableCsvQuerySchema } from './preview/preview.ts';
import {
  ConnectionObjectSchema,
  ConnectionQueryBodySchema,
  ConnectionQueryResultSchema,
  ConnectionSchemaObjectSchema,
  ExtractBodySchema,
  ExtractResultSchema,
} from './wire/connections.ts';
import {
  DeletedSchema,
  ExecResultSchema,
  FileObjectSchema,
  listOf,
  MessageObjectSchema,
  ModelObjectSchema,
  RunObjectSchema,
  SandboxRestartSchema,
  ThreadObjectSchema,
  WireErrorSchema,
  WorkspaceFileObjectSchema,
} from './wire/objects.ts';
import {
  ChatRequestSchema,
  CleanupBodySchema,
  CreateThreadSchema,
  ExecBodySchema,
  McpMessageSchema,
  McpQuerySchema,
  MessageListQuerySchema,
  ReportQuerySchema,
  RunEventsQuerySchema,
  RunRequestSchema,
  ThreadExecBodySchema,
  ThreadListQuerySchema,
  UpdateThreadSchema,
} from './wire/requests.ts';

/**
 * Every route of the HTTP API, described once, with the schemas its requests are validated
 * with and its answers are typed by; /openapi.json is generated from this list, and a test
 * compares it with the routes the app registers, so no route goes undocumented.
 */
export interface ApiRoute {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/v1/threads/{id}`; a trailing `{path}` is a wildcard. */
  path: string;
  summary: string;
  /** Needs no API key. */
  public?: boolean;
  body?: z.ZodTypeAny | 'multipart';
  query?: z.ZodTypeAny;
  /**
   * The 200 (or 201) answer: a schema, or a description of a non-JSON body (for an event
   * stream, with the schema of each event's `data:`).
   */
  response?: z.ZodTypeAny | { description: string; contentType: string; events?: z.ZodTypeAny };
  status?: 200 | 201;
  /** Error statuses beyond 400/401/404. */
  errors?: number[];
}

const text = (description: string, contentType: string, events?: z.ZodTypeAny) => ({
  description,
  contentType,
  ...(events ? { events } : {}),
});

export const API_ROUTES: ApiRoute[] = [
  { method: 'get', path: '/health', summary: 'Liveness', public: true },
  {
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: store and sandbox (details only with a key)',
    public: true,
    errors: [503],
  },
  { method: 'get', path: '/openapi.json', summary: 'This document', public: true },
  { method: 'get', path: '/v1/models', summary: 'List models', response: listOf(ModelObjectSchema) },
  { method: 'get', path: '/v1/models/{id}', summary: 'A model', response: ModelObjectSchema },
  { method: 'get', path: '/v1/files', summary: 'List uploaded files', response: listOf(FileObjectSchema) },
  {
    method: 'post',
    path: '/v1/files',
    summary: 'Upload a file (multipart: file, purpose)',
    body: 'multipart',
    response: FileObjectSchema,
    errors: [413],
  },
  { method: 'get', path: '/v1/files/{id}', summary: 'A file', response: FileObjectSchema },
  { method: 'delete', path: '/v1/files/{id}', summary: 'Delete a file', response: DeletedSchema },
  {
    method: 'get',
    path: '/v1/files/{id}/content',
    summary: "A file's bytes",
    response: text('bytes', 'application/octet-stream'),
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    summary: 'Run an analysis (SSE with stream: true; background: true runs on after a hang-up)',
    body: ChatRequestSchema,
    response: text('chat.completion, or text/event-stream of chat.completion.chunk', 'application/json'),
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
    response: text(
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
  {
    method: 'get',
    path: '/v1/threads/{id}/files',
    summary: 'Workspace files',
    response: listOf(WorkspaceFileObjectSchema),
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/files',
    summary: 'Upload into the workspace (multipart: file)',
    body: 'multipart',
    errors: [409, 413],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/files/{path}',
    summary: 'Download a workspace file (never through a symlink)',
    response: text('bytes', 'application/octet-stream'),
  },
  {
    method: 'delete',
    path: '/v1/threads/{id}/files/{path}',
    summary: 'Delete a workspace file or folder',
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/preview/{path}',
    summary:
      'A page of a workspace file (query offset, limit ≤ 1000, sheet, table): CSV/TSV, Excel sheets, SQLite tables, Parquet, JSON, text; or its kind (image, pdf, binary). CSV, TSV and Parquet tables sort, search and filter server-side (sort, desc, search, filter; total_rows counts the rows kept)',
    query: PreviewQuerySchema,
    response: PreviewSchema,
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/table-csv/{path}',
    summary:
      "A CSV, TSV or Parquet file's table as CSV, sorted, searched and filtered as in its preview (at most 1,000,000 rows; header x-analyst-total-rows counts the rows the query keeps), streamed",
    query: TableCsvQuerySchema,
    response: text('CSV with a header row', 'text/csv'),
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/profile/{path}',
    summary:
      "A profile of a workspace file's table (query sheet, table) from its first 100,000 rows: per column type, count, missing, distinct, min/max/mean and a 10-bin histogram for numbers or the top 5 values; computed out of process, kept per file version",
    query: ProfileQuerySchema,
    response: ProfileSchema,
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/export',
    summary: 'The workspace as a ZIP, streamed (query format=zip)',
    response: text('a ZIP archive', 'application/zip'),
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/exec',
    summary:
      "Run a cell in the thread's sandbox (with stream: true, SSE of execution-output events then execution-end with the ExecResult)",
    body: ThreadExecBodySchema,
    response: ExecResultSchema,
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/sandbox/restart',
    summary: "Restart the thread's sandbox (its kernel and variables; the workspace stays)",
    response: SandboxRestartSchema,
    errors: [409],
  },
  { method: 'post', path: '/v1/threads/{id}/cancel', summary: 'Cancel the running analysis' },
  {
    method: 'get',
    path: '/v1/threads/{id}/report',
    summary: 'Report (md, html or pdf)',
    query: ReportQuerySchema,
    response: text('the report', 'text/markdown'),
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/notebook',
    summary: 'Jupyter notebook (nbformat 4.5)',
    response: text('ipynb', 'application/x-ipynb+json'),
  },
  {
    method: 'post',
    path: '/v1/exec',
    summary: 'One-shot execution in a fresh sandbox',
    body: ExecBodySchema,
    response: ExecResultSchema,
  },
  {
    method: 'get',
    path: '/v1/admin/threads-stats',
    summary: "Counts of the caller's threads, runs and files",
  },
  {
    method: 'post',
    path: '/v1/admin/cleanup-threads',
    summary: "Delete the caller's idle threads",
    body: CleanupBodySchema,
  },
  { method: 'get', path: '/v1/admin/sandbox', summary: 'Sandbox engine, image and pool' },
  {
    method: 'post',
    path: '/mcp',
    summary:
      "MCP (Streamable HTTP): an initialize request opens a session on the caller's thread (?thread_id=) or a new one; later requests send Mcp-Session-Id",
    query: McpQuerySchema,
    body: McpMessageSchema,
    response: text('a JSON-RPC response, or an SSE stream of JSON-RPC messages', 'text/event-stream'),
  },
  {
    method: 'get',
    path: '/mcp',
    summary: "MCP: the session's stream of server messages (SSE; needs Mcp-Session-Id)",
    response: text('an SSE stream of JSON-RPC messages', 'text/event-stream'),
  },
  { method: 'delete', path: '/mcp', summary: 'MCP: end the session (needs Mcp-Session-Id)' },
  {
    method: 'get',
    path: '/v1/connections',
    summary: 'Database connections this key may use (no secrets)',
    response: listOf(ConnectionObjectSchema),
  },
  {
    method: 'get',
    path: '/v1/connections/{id}/schema',
    summary: "A connection's schemas, tables, columns with types and row estimates",
    response: ConnectionSchemaObjectSchema,
    errors: [502, 504],
  },
  {
    method: 'post',
    path: '/v1/connections/{id}/query',
    summary: 'Run one read-only statement on a connection',
    body: ConnectionQueryBodySchema,
    response: ConnectionQueryResultSchema,
    errors: [502, 504],
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/connections/{connection_id}/extract',
    summary: "Bring a connection's table or a query's result into the thread's workspace as Parquet",
    body: ExtractBodySchema,
    response: ExtractResultSchema,
    errors: [413, 502, 504],
  },
];

const schema = (zod: z.ZodTypeAny) => {
  const { $schema: _, ...rest } = zodToJsonSchema(zod, {
    target: 'openApi3',
    $refStrategy: 'none',
    // What the client sends: a query's JSON text (`filter`) is a string on the wire.
    pipeStrategy: 'input',
  }) as Record<string, unknown>;
  return rest;
};

function operation(route: ApiRoute) {
  const parameters: object[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) {
    const query = schema(route.query) as { properties?: Record<string, object> };
    for (const [name, property] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema: property });
    }
  }
  const responses: Record<string, object> = {};
  const response = route.response;
  const okStatus = String(route.status ?? 200);
  if (response === undefined)
    responses[okStatus] = {
      description: 'OK',
      content: { 'application/json': { schema: { type: 'object' } } },
    };
  else if ('contentType' in response && typeof response.contentType === 'string') {
    const events = 'events' in response ? (response.events as z.ZodTypeAny | undefined) : undefined;
    responses[okStatus] = {
      description: response.description,
      content: { [response.contentType]: events ? { schema: schema(events) } : {} },
    };
  } else
    responses[okStatus] = {
      description: 'OK',
      content: { 'application/json': { schema: schema(response as z.ZodTypeAny) } },
    };
  for (const status of route.public ? (route.errors ?? []) : [400, 401, 404, ...(route.errors ?? [])]) {
    responses[String(status)] = { $ref: '#/components/responses/Error' };
  }
  const body =
    route.body === undefined
      ? undefined
      : route.body === 'multipart'
        ? {
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string' } },
                  required: ['file'],
                },
              },
            },
          }
        : { required: true, content: { 'application/json': { schema: schema(route.body) } } };
  return {
    summary: route.summary,
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

let document: object | undefined;

/** The OpenAPI 3.1 description of the HTTP API, served at /openapi.json. */
export function openApiDocument(): object {
  if (document) return document;
  const paths: Record<string, Record<string, object>> = {};
  for (const route of API_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route);
  }
  document = {
    openapi: '3.1.0',
    info: {
      title: 'Analyst',
      version: '0.1.0',
      description:
        "A self-hosted data-analysis agent. OpenAI-compatible chat completions with DeepAnalyze's extensions (file_ids, thread_id, files), threads as workspaces, runs owned by the service, and a safe Python execution API.",
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      responses: {
        Error: {
          description: "OpenAI's error shape",
          content: { 'application/json': { schema: schema(WireErrorSchema) } },
        },
      },
      schemas: { ExecResult: schema(ExecResultSchema) },
    },
    security: [{ bearer: [] }],
    paths,
  };
  return document;
}
