import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { readRunEvents } from '../../../contract/run-events-reader.ts';
import type { ChatBackend, ChatFile, ChatRunEvent, ChatThread } from './backend.ts';
import { ServiceError } from './errors/service-error.ts';
import { ServiceUnreachableError } from './errors/service-unreachable-error.ts';

const ThreadSchema = z.object({
  id: z.string(),
  title: z.string().nullable(),
  updated_at: z.number(),
  metadata: z.record(z.unknown()).nullable().optional(),
  busy: z.boolean().optional(),
});
const ListSchema = <T extends z.ZodTypeAny>(item: T) => z.object({ data: z.array(item) });
const FileSchema = z.object({ path: z.string(), bytes: z.number() });
const RunSchema = z.object({ id: z.string() });
const ModelSchema = z.object({ id: z.string(), default: z.boolean().optional() });
const ErrorSchema = z.object({
  error: z.object({ message: z.string(), code: z.string().nullable().optional() }),
});

export interface HttpBackendOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8200. */
  url: string;
  apiKey?: string;
  /** Injected for tests; default the global fetch. */
  fetch?: typeof fetch;
  /** How to name the server in messages. Default its URL. */
  location?: string;
  /** Called by `close` (an in-process server stops there). */
  onClose?: () => Promise<void>;
}

/** The chat backend over HTTP: the runs API and the thread, file, report and model endpoints. */
export class HttpBackend implements ChatBackend {
  readonly location: string;
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: HttpBackendOptions) {
    this.base = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.location = options.location ?? this.base;
    this.fetch = options.fetch ?? fetch;
  }

  async createThread(options: { model?: string } = {}): Promise<ChatThread> {
    const body = options.model ? { metadata: { model: options.model } } : {};
    return threadOf(await this.json('POST', '/v1/threads', ThreadSchema, body));
  }

  async getThread(id: string): Promise<ChatThread> {
    return threadOf(await this.json('GET', `/v1/threads/${encodeURIComponent(id)}`, ThreadSchema));
  }

  async listThreads(options: { limit?: number } = {}): Promise<ChatThread[]> {
    const list = await this.json('GET', `/v1/threads?limit=${options.limit ?? 20}`, ListSchema(ThreadSchema));
    return list.data.map(threadOf);
  }

  async setThreadModel(threadId: string, model: string): Promise<ChatThread> {
    const path = `/v1/threads/${encodeURIComponent(threadId)}`;
    const current = await this.json('GET', path, ThreadSchema);
    const metadata = { ...(current.metadata ?? {}), model };
    return threadOf(await this.json('PATCH', path, ThreadSchema, { metadata }));
  }

  async uploadFile(threadId: string, localPath: string): Promise<{ path: string; bytes: number }> {
    const form = new FormData();
    form.append('file', new Blob([await readFile(localPath)]), basename(localPath));
    const response = await this.request('POST', `/v1/threads/${encodeURIComponent(threadId)}/files`, form);
    return FileSchema.parse(await response.json());
  }

  async listFiles(threadId: string): Promise<ChatFile[]> {
    const list = await this.json(
      'GET',
      `/v1/threads/${encodeURIComponent(threadId)}/files`,
      ListSchema(FileSchema),
    );
    return list.data;
  }

  async downloadFile(threadId: string, path: string): Promise<Buffer> {
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    return this.bytes(`/v1/threads/${encodeURIComponent(threadId)}/files/${encoded}`);
  }

  async startRun(
    threadId: string,
    options: { question: string; model?: string; connectionIds?: string[] },
  ): Promise<{ runId: string }> {
    const body = {
      messages: [{ role: 'user', content: options.question }],
      ...(options.model ? { model: options.model } : {}),
      ...(options.connectionIds?.length ? { connection_ids: options.connectionIds } : {}),
    };
    const run = await this.json('POST', `/v1/threads/${encodeURIComponent(threadId)}/runs`, RunSchema, body);
    return { runId: run.id };
  }

  async *runEvents(
    threadId: string,
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal } = {},
  ): AsyncGenerator<ChatRunEvent> {
    const path = `/v1/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/events`;
    const query = options.after === undefined ? '' : `?after=${options.after}`;
    const response = await this.request('GET', `${path}${query}`, undefined, options.abortSignal);
    if (!response.body) return;
    for await (const { seq, ...event } of readRunEvents(response.body)) yield { seq, event };
  }

  async cancelRun(threadId: string, runId: string): Promise<void> {
    await this.request(
      'POST',
      `/v1/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/cancel`,
    );
  }

  report(threadId: string, format: 'md' | 'html' | 'pdf'): Promise<Buffer> {
    return this.bytes(`/v1/threads/${encodeURIComponent(threadId)}/report?format=${format}`);
  }

  notebook(threadId: string): Promise<Buffer> {
    return this.bytes(`/v1/threads/${encodeURIComponent(threadId)}/notebook`);
  }

  async listModels(): Promise<{ id: string; default: boolean }[]> {
    const list = await this.json('GET', '/v1/models', ListSchema(ModelSchema));
    return list.data.map((m) => ({ id: m.id, default: m.default ?? false }));
  }

  async close(): Promise<void> {
    await this.options.onClose?.();
  }

  private async json<T extends z.ZodTypeAny>(
    method: string,
    path: string,
    schema: T,
    body?: unknown,
  ): Promise<z.infer<T>> {
    const response = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body));
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success)
      throw new ServiceError(
        `${method} ${path}: the server's answer is not what Analyst sends (is ${this.base} an Analyst server?)`,
        {
          status: 502,
        },
      );
    return parsed.data;
  }

  private async bytes(path: string): Promise<Buffer> {
    const response = await this.request('GET', path);
    return Buffer.from(await response.arrayBuffer());
  }

  private async request(
    method: string,
    path: string,
    body?: string | FormData,
    abortSignal?: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetch(`${this.base}${path}`, { method, headers, body, signal: abortSignal });
    } catch (error) {
      if (abortSignal?.aborted) throw error;
      throw new ServiceUnreachableError(
        `no Analyst server answers at ${this.base} (${(error as Error).message}): start one with \`npx analyst serve\`, or leave out --url to run one in-process`,
        { cause: error },
      );
    }
    if (response.ok) return response;
    const text = await response.text();
    let message = `${method} ${path} failed with HTTP ${response.status}`;
    let code: string | undefined;
    try {
      const error = ErrorSchema.parse(JSON.parse(text));
      message = error.error.message;
      code = error.error.code ?? undefined;
    } catch {
      if (text.trim()) message += `: ${text.trim().slice(0, 200)}`;
    }
    if (response.status === 401) message += ' (give the key with --api-key)';
    throw new ServiceError(message, { status: response.status, ...(code ? { code } : {}) });
  }
}

function threadOf(thread: z.infer<typeof ThreadSchema>): ChatThread {
  const model = thread.metadata?.model;
  return {
    id: thread.id,
    title: thread.title,
    updatedAt: thread.updated_at,
    busy: thread.busy ?? false,
    ...(typeof model === 'string' ? { model } : {}),
  };
}
