import { z } from 'zod';
import {
  ConnectionObjectSchema,
  ConnectionQueryResultSchema,
  ConnectionSchemaObjectSchema,
  ExtractResultSchema,
} from '../contract/connections.ts';
import { type AgentEvent, AgentEventSchema, type SequencedEvent } from '../contract/events.ts';
import {
  DeletedSchema,
  EventsPageSchema,
  listOf,
  MessageObjectSchema,
  ModelObjectSchema,
  RunObjectSchema,
  ThreadObjectSchema,
  ThreadWithRunsSchema,
  UploadedFileSchema,
  WorkspaceFileObjectSchema,
} from '../contract/objects.ts';
import { PreviewSchema } from '../contract/preview.ts';
import { ProfileSchema } from '../contract/profile.ts';
import { readRunEvents } from '../contract/run-events-reader.ts';
import { ApiError } from './api-error.ts';
import { type ApiRequest, Transport } from './transport.ts';
import { type UploadTransport, uploadWithFetch } from './upload.ts';

export interface AnalystClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:8200`; `''` for the page's own origin. A trailing `/` or `/v1` is dropped. */
  baseUrl: string;
  /** The API key, or a function giving the current one (the web UI's changes when the person types one). */
  apiKey?: string | (() => string | undefined);
  /** Injected I/O; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /**
   * After a 401 to a request sent with `sentKey`: resolves true once a new key is in place (the
   * request is sent again with it), false to fail with the 401. Default: fail.
   */
  onUnauthorized?: (sentKey: string | undefined) => Promise<boolean>;
  /** How uploads are sent; default a fetch. The web UI passes one over XMLHttpRequest, which reports progress. */
  upload?: UploadTransport;
}

/** A thread's metadata: front ends keep the model and settings here. */
export type ThreadMetadata = Record<string, unknown>;

/** What a run is asked to do (docs/spec.md#http-api): a question, or one cell to run again. */
export interface StartRunBody {
  messages?: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>;
  model?: string;
  temperature?: number;
  system?: string;
  connection_ids?: string[];
  cell?: { code: string; timeout?: number };
  /** Edit or regenerate an earlier question (its message id): see docs/spec.md#revisions. */
  from_message_id?: string;
}

const ThreadListSchema = listOf(ThreadObjectSchema);
const ModelListSchema = listOf(ModelObjectSchema);
const FileListSchema = listOf(WorkspaceFileObjectSchema);
const ConnectionListSchema = listOf(ConnectionObjectSchema);
const MessageListSchema = listOf(MessageObjectSchema);
const AnySchema = z.unknown();

const id = encodeURIComponent;
/** A workspace path in a URL: each segment encoded, the slashes kept. */
export const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

/**
 * The typed client of the HTTP API, shared by the web UI and the CLI: one method per endpoint
 * they use, each answer checked against the contract's schema (src/contract/), every failure
 * an `ApiError`. It uses only what browsers and Node both have (fetch, FormData, Blob, streams).
 */
export class AnalystClient {
  private readonly http: Transport;
  private readonly upload: UploadTransport;

  constructor(options: AnalystClientOptions) {
    this.http = new Transport(options);
    this.upload = options.upload ?? uploadWithFetch(options.fetch ?? globalThis.fetch);
  }

  /** The server's base URL as given, without a trailing `/` or `/v1`. */
  get baseUrl(): string {
    return this.http.base;
  }

  /* Models */

  listModels() {
    return this.http.json(ModelListSchema, { path: '/v1/models' });
  }

  /* Threads */

  /** Threads newest first; `query` keeps those whose title contains it. */
  listThreads(options: { limit?: number; query?: string } = {}) {
    const query = options.query ? `&q=${encodeURIComponent(options.query)}` : '';
    return this.http.json(ThreadListSchema, { path: `/v1/threads?limit=${options.limit ?? 20}${query}` });
  }

  createThread(body: { title?: string | null; metadata?: ThreadMetadata; file_ids?: string[] } = {}) {
    return this.http.json(ThreadObjectSchema, { method: 'POST', path: '/v1/threads', json: body });
  }

  /** A thread with its runs. */
  getThread(threadId: string) {
    return this.http.json(ThreadWithRunsSchema, { path: `/v1/threads/${id(threadId)}` });
  }

  /** Changes a thread's title (null clears it) or its metadata (replaced whole), whichever is given. */
  updateThread(threadId: string, patch: { title?: string | null; metadata?: ThreadMetadata }) {
    return this.http.json(ThreadObjectSchema, {
      method: 'PATCH',
      path: `/v1/threads/${id(threadId)}`,
      json: patch,
    });
  }

  deleteThread(threadId: string) {
    return this.http.json(DeletedSchema, { method: 'DELETE', path: `/v1/threads/${id(threadId)}` });
  }

  /**
   * One page of a thread's stored events (every run's, in order) after `after`, the `lastId`
   * of the page before. An item that is not an event (another version's) is left out.
   */
  async threadEventsPage(
    threadId: string,
    after?: string,
  ): Promise<{ events: AgentEvent[]; hasMore: boolean; lastId: string | null }> {
    const query = after ? `?after=${encodeURIComponent(after)}` : '';
    const page = await this.http.json(EventsPageSchema, {
      path: `/v1/threads/${id(threadId)}/events${query}`,
    });
    const events = page.data.flatMap((item) => {
      const event = AgentEventSchema.safeParse(item);
      return event.success ? [event.data] : [];
    });
    return { events, hasMore: page.has_more, lastId: page.last_id };
  }

  /** The thread's messages, oldest first; `role` keeps only questions or only answers. */
  listMessages(threadId: string, options: { role?: 'user' | 'assistant' } = {}) {
    const query = options.role ? `?role=${options.role}` : '';
    return this.http.json(MessageListSchema, { path: `/v1/threads/${id(threadId)}/messages${query}` });
  }

  /* Runs */

  startRun(threadId: string, body: StartRunBody) {
    return this.http.json(RunObjectSchema, {
      method: 'POST',
      path: `/v1/threads/${id(threadId)}/runs`,
      json: body,
    });
  }

  getRun(threadId: string, runId: string) {
    return this.http.json(RunObjectSchema, { path: `/v1/threads/${id(threadId)}/runs/${id(runId)}` });
  }

  cancelRun(threadId: string, runId: string) {
    return this.http.json(RunObjectSchema, {
      method: 'POST',
      path: `/v1/threads/${id(threadId)}/runs/${id(runId)}/cancel`,
    });
  }

  /**
   * The run's events numbered above `after` (default: all), stored ones then live ones, each
   * checked by `readRunEvents`; ends after `run-end` or when the connection drops (resume
   * with the last `seq`). An unknown run is an ApiError with status 404. `onOpen` is called once
   * the server has answered, before any event (a run may be quiet for a while).
   */
  async *runEvents(
    threadId: string,
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal; onOpen?: () => void } = {},
  ): AsyncGenerator<SequencedEvent> {
    const query = options.after === undefined ? '' : `?after=${options.after}`;
    const request: ApiRequest = {
      path: `/v1/threads/${id(threadId)}/runs/${id(runId)}/events${query}`,
      headers: { accept: 'text/event-stream' },
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    };
    const response = await this.http.send(request);
    options.onOpen?.();
    if (!response.body) return;
    yield* readRunEvents(response.body);
  }

  /* Files of a thread's workspace */

  listFiles(threadId: string) {
    return this.http.json(FileListSchema, { path: `/v1/threads/${id(threadId)}/files` });
  }

  /**
   * Uploads one file into the thread's workspace (into `folder` when given). Aborting
   * `abortSignal` stops it, and the server keeps nothing: an ApiError with code `cancelled`.
   */
  async uploadFile(
    threadId: string,
    file: { name: string; data: Blob; folder?: string },
    options: { onProgress?: (fraction: number) => void; abortSignal?: AbortSignal } = {},
  ) {
    const path = `/v1/threads/${id(threadId)}/files`;
    const form = new FormData();
    if (file.folder) form.append('folder', file.folder);
    form.append('file', file.data, file.name);
    const answer = await this.http.withKey(() =>
      this.upload({ url: this.http.url(path), headers: this.http.headers(), body: form, ...options }),
    );
    if (answer.status < 200 || answer.status > 299)
      throw ApiError.fromResponse(answer.status, answer.text, `POST ${path}`);
    return this.http.check(UploadedFileSchema, answer.text, { method: 'POST', path });
  }

  deleteFile(threadId: string, path: string) {
    return this.http.json(AnySchema, {
      method: 'DELETE',
      path: `/v1/threads/${id(threadId)}/files/${encodePath(path)}`,
    });
  }

  /** A file of the workspace, as bytes. */
  async downloadFile(threadId: string, path: string): Promise<Uint8Array> {
    return this.bytes(`/v1/threads/${id(threadId)}/files/${encodePath(path)}`);
  }

  /**
   * Rows `offset` to `offset + limit` of a file's preview. `url` is the preview's path, as
   * the server links it (`/v1/threads/{id}/preview/{path}`, maybe with a sheet or table).
   */
  preview(url: string, page: { offset: number; limit: number }) {
    const path = `${url}${url.includes('?') ? '&' : '?'}offset=${page.offset}&limit=${page.limit}`;
    return this.http.json(PreviewSchema, { path });
  }

  /**
   * A profile of a file's table (one Excel sheet or SQLite table, the first when none is
   * named): per column its type, missing and distinct counts, min/max/mean and a histogram
   * or the most common values.
   */
  profile(threadId: string, path: string, options: { sheet?: string; table?: string } = {}) {
    const query = new URLSearchParams();
    if (options.sheet !== undefined) query.set('sheet', options.sheet);
    if (options.table !== undefined) query.set('table', options.table);
    const search = query.size > 0 ? `?${query}` : '';
    return this.http.json(ProfileSchema, {
      path: `/v1/threads/${id(threadId)}/profile/${encodePath(path)}${search}`,
    });
  }

  /* Reports and exports */

  report(threadId: string, format: 'md' | 'html' | 'pdf'): Promise<Uint8Array> {
    return this.bytes(`/v1/threads/${id(threadId)}/report?format=${format}`);
  }

  notebook(threadId: string): Promise<Uint8Array> {
    return this.bytes(`/v1/threads/${id(threadId)}/notebook`);
  }

  /**
   * Any GET resource of the API the server links to (a file, an export, a chart in an answer),
   * with the key, as the raw answer (for a download or an image); a failure is an ApiError.
   */
  resource(path: string, options: { abortSignal?: AbortSignal } = {}): Promise<Response> {
    return this.http.send({ path, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) });
  }

  /* Database connections (docs/connections.md) */

  listConnections() {
    return this.http.json(ConnectionListSchema, { path: '/v1/connections' });
  }

  connectionSchema(connectionId: string) {
    return this.http.json(ConnectionSchemaObjectSchema, {
      path: `/v1/connections/${id(connectionId)}/schema`,
    });
  }

  /** One read-only statement; at most `maxRows` rows (and the connection's own cap). */
  queryConnection(connectionId: string, sql: string, maxRows: number) {
    return this.http.json(ConnectionQueryResultSchema, {
      method: 'POST',
      path: `/v1/connections/${id(connectionId)}/query`,
      json: { sql, max_rows: maxRows },
    });
  }

  /** Writes a table's (or a statement's) rows into the thread's workspace as `<name>.parquet`. */
  extractConnection(
    threadId: string,
    connectionId: string,
    source: { table: string } | { sql: string },
    name: string,
  ) {
    return this.http.json(ExtractResultSchema, {
      method: 'POST',
      path: `/v1/threads/${id(threadId)}/connections/${id(connectionId)}/extract`,
      json: { ...source, name },
    });
  }

  private async bytes(path: string): Promise<Uint8Array> {
    const response = await this.http.send({ path });
    return new Uint8Array(await response.arrayBuffer());
  }
}
