import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { AnalystClient, ApiError } from '../../../client/index.ts';
import type { ChatBackend, ChatFile, ChatRunEvent, ChatThread } from './backend.ts';
import { ServiceUnreachableError } from './errors/service-unreachable-error.ts';

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

/**
 * The chat backend over HTTP, through the API client the web UI uses too (src/client/): the
 * runs API and the thread, file, report and model endpoints. Its failures are the client's
 * ApiError, with what to do added where the CLI knows it.
 */
export class HttpBackend implements ChatBackend {
  readonly location: string;
  private readonly client: AnalystClient;

  constructor(private readonly options: HttpBackendOptions) {
    this.client = new AnalystClient({
      baseUrl: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.location = options.location ?? this.client.baseUrl;
  }

  createThread(options: { model?: string } = {}): Promise<ChatThread> {
    return this.call(async (c) =>
      threadOf(await c.createThread(options.model ? { metadata: { model: options.model } } : {})),
    );
  }

  getThread(id: string): Promise<ChatThread> {
    return this.call(async (c) => threadOf(await c.getThread(id)));
  }

  listThreads(options: { limit?: number } = {}): Promise<ChatThread[]> {
    return this.call(async (c) => (await c.listThreads({ limit: options.limit ?? 20 })).data.map(threadOf));
  }

  setThreadModel(threadId: string, model: string): Promise<ChatThread> {
    return this.call(async (c) => {
      const current = await c.getThread(threadId);
      return threadOf(await c.updateThread(threadId, { metadata: { ...current.metadata, model } }));
    });
  }

  async uploadFile(threadId: string, localPath: string): Promise<{ path: string; bytes: number }> {
    const data = new Blob([await readFile(localPath)]);
    return this.call(async (c) => {
      const { path, bytes } = await c.uploadFile(threadId, { name: basename(localPath), data });
      return { path, bytes };
    });
  }

  listFiles(threadId: string): Promise<ChatFile[]> {
    return this.call(async (c) =>
      (await c.listFiles(threadId)).data.map(({ path, bytes }) => ({ path, bytes })),
    );
  }

  downloadFile(threadId: string, path: string): Promise<Buffer> {
    return this.call(async (c) => Buffer.from(await c.downloadFile(threadId, path)));
  }

  startRun(
    threadId: string,
    options: { question?: string; model?: string; connectionIds?: string[]; fromMessageId?: string },
  ): Promise<{ runId: string }> {
    return this.call(async (c) => {
      const run = await c.startRun(threadId, {
        ...(options.question !== undefined
          ? { messages: [{ role: 'user', content: options.question }] }
          : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(options.connectionIds?.length ? { connection_ids: options.connectionIds } : {}),
        ...(options.fromMessageId ? { from_message_id: options.fromMessageId } : {}),
      });
      return { runId: run.id };
    });
  }

  lastQuestionId(threadId: string): Promise<string | undefined> {
    return this.call(async (c) => (await c.listMessages(threadId, { role: 'user' })).data.at(-1)?.id);
  }

  async *runEvents(
    threadId: string,
    runId: string,
    options: { after?: number; abortSignal?: AbortSignal } = {},
  ): AsyncGenerator<ChatRunEvent> {
    try {
      for await (const { seq, ...event } of this.client.runEvents(threadId, runId, options))
        yield { seq, event };
    } catch (error) {
      throw this.explained(error);
    }
  }

  async cancelRun(threadId: string, runId: string): Promise<void> {
    await this.call((c) => c.cancelRun(threadId, runId));
  }

  report(threadId: string, format: 'md' | 'html' | 'pdf'): Promise<Buffer> {
    return this.call(async (c) => Buffer.from(await c.report(threadId, format)));
  }

  notebook(threadId: string): Promise<Buffer> {
    return this.call(async (c) => Buffer.from(await c.notebook(threadId)));
  }

  listModels(): Promise<{ id: string; default: boolean }[]> {
    return this.call(async (c) => (await c.listModels()).data.map((m) => ({ id: m.id, default: m.default })));
  }

  async close(): Promise<void> {
    await this.options.onClose?.();
  }

  private async call<T>(work: (client: AnalystClient) => Promise<T>): Promise<T> {
    try {
      return await work(this.client);
    } catch (error) {
      throw this.explained(error);
    }
  }

  /** The client's error with what a person at the terminal can do about it. */
  private explained(error: unknown): unknown {
    if (!(error instanceof ApiError)) return error;
    if (error.code === 'network')
      return new ServiceUnreachableError(
        `no Analyst server answers at ${this.client.baseUrl} (${error.cause instanceof Error ? error.cause.message : error.message}): start one with \`npx analyst serve\`, or leave out --url to run one in-process`,
        { cause: error },
      );
    if (error.status === 401)
      return new ApiError(`${error.message} (give the key with --api-key)`, {
        status: error.status,
        code: error.code,
        cause: error,
      });
    return error;
  }
}

function threadOf(thread: {
  id: string;
  title: string | null;
  updated_at: number;
  metadata: Record<string, unknown>;
  busy: boolean;
}): ChatThread {
  const model = thread.metadata.model;
  return {
    id: thread.id,
    title: thread.title,
    updatedAt: thread.updated_at,
    busy: thread.busy,
    ...(typeof model === 'string' ? { model } : {}),
  };
}
