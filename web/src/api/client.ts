/**
 * The HTTP API as the browser uses it. The API key (when the server needs one) lives in
 * memory and in sessionStorage for this tab only — never in localStorage. A 401 asks the
 * person for a key (through `onUnauthorized`) and retries once with it.
 */

import type { AgentEvent } from '../../../src/agent/events.ts';
import { fileUrl } from '../lib/files.ts';
import type {
  Connection,
  ConnectionExtract,
  ConnectionQueryResult,
  ConnectionSchema,
  List,
  Model,
  Preview,
  Run,
  Thread,
  ThreadMetadata,
  WorkspaceFile,
} from './types.ts';

const KEY_STORAGE = 'analyst.key';
let apiKey: string | undefined = sessionStorage.getItem(KEY_STORAGE) ?? undefined;
let prompt: ((invalid: boolean) => Promise<string>) | undefined;
let pendingKey: Promise<string> | undefined;

export function setKeyPrompt(ask: (invalid: boolean) => Promise<string>): void {
  prompt = ask;
}

/** Asks once for every request that got a 401 at the same time. */
const askForKey = (invalid: boolean): Promise<string> => {
  pendingKey ??= prompt!(invalid).finally(() => {
    pendingKey = undefined;
  });
  return pendingKey;
};

export function hasKey(): boolean {
  return apiKey !== undefined;
}

function setKey(key: string): void {
  apiKey = key;
  sessionStorage.setItem(KEY_STORAGE, key);
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function headersOf(init: RequestInit | undefined): Headers {
  const headers = new Headers(init?.headers);
  if (apiKey) headers.set('authorization', `Bearer ${apiKey}`);
  return headers;
}

/**
 * After a 401 to a request sent with `sent`: the key to try next. When another request set a
 * new key meanwhile, that one (no question asked); otherwise the person is asked, told that
 * the key was refused when one was sent.
 */
async function nextKey(sent: string | undefined): Promise<void> {
  if (apiKey !== sent) return;
  setKey(await askForKey(sent !== undefined));
}

/** fetch against the API with the key; a 401 asks for a key and tries again. */
export async function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const sent = apiKey;
    let response: Response;
    try {
      response = await fetch(path, { ...init, headers: headersOf(init) });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError('network', 0, 'network');
    }
    if (response.status !== 401 || !prompt) return response;
    await nextKey(sent);
  }
  throw new ApiError('unauthorized', 401, 'unauthorized');
}

async function failure(response: Response): Promise<ApiError> {
  let message = `HTTP ${response.status}`;
  let code: string | null = null;
  try {
    const body = (await response.json()) as { error?: { message?: string; code?: string | null } };
    if (body.error?.message) message = body.error.message;
    code = body.error?.code ?? null;
  } catch {
    // not JSON: keep the status
  }
  return new ApiError(message, response.status, code);
}

export async function api<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const request: RequestInit =
    json === undefined
      ? rest
      : {
          ...rest,
          body: JSON.stringify(json),
          headers: { ...(rest.headers as Record<string, string>), 'content-type': 'application/json' },
        };
  const response = await apiFetch(path, request);
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** Downloads an API resource as a file (with the key, so it works on servers that need one). */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await apiFetch(path);
  if (!response.ok) throw await failure(response);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const blobs = new Map<string, Promise<string>>();

/** A blob: URL for an API resource (images need the key too); cached per path and version. */
export function blobUrl(path: string, version = ''): Promise<string> {
  const key = `${path}#${version}`;
  let url = blobs.get(key);
  if (!url) {
    url = (async () => {
      const response = await apiFetch(path);
      if (!response.ok) throw await failure(response);
      return URL.createObjectURL(await response.blob());
    })();
    url.catch(() => blobs.delete(key));
    blobs.set(key, url);
  }
  return url;
}

/**
 * Uploads one file into the thread's workspace (optionally into a folder), reporting progress.
 * Aborting `abortSignal` stops the upload (the server then keeps nothing of it); the promise
 * rejects with an ApiError whose code is `cancelled`.
 */
export function uploadFile(
  threadId: string,
  file: File,
  folder: string,
  onProgress: (fraction: number) => void,
  abortSignal?: AbortSignal,
): Promise<{ path: string; bytes: number }> {
  let sent: string | undefined;
  const send = (): Promise<{ path: string; bytes: number }> =>
    new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      if (abortSignal?.aborted) return reject(new ApiError('cancelled', 0, 'cancelled'));
      abortSignal?.addEventListener('abort', () => request.abort(), { once: true });
      request.onabort = () => reject(new ApiError('cancelled', 0, 'cancelled'));
      request.open('POST', `/v1/threads/${threadId}/files`);
      sent = apiKey;
      if (apiKey) request.setRequestHeader('authorization', `Bearer ${apiKey}`);
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      };
      request.onerror = () => reject(new ApiError('network', 0, 'network'));
      request.onload = () => {
        let body: { path?: string; bytes?: number; error?: { message?: string; code?: string } } = {};
        try {
          body = JSON.parse(request.responseText);
        } catch {
          // keep the status
        }
        if (request.status === 200 && body.path) resolve({ path: body.path, bytes: body.bytes ?? 0 });
        else
          reject(
            new ApiError(
              body.error?.message ?? `HTTP ${request.status}`,
              request.status,
              body.error?.code ?? null,
            ),
          );
      };
      const form = new FormData();
      if (folder) form.append('folder', folder);
      form.append('file', file, file.name);
      request.send(form);
    });
  return send().catch(async (error: ApiError) => {
    if (error.status !== 401 || !prompt) throw error;
    await nextKey(sent);
    return send();
  });
}

/* The API calls the studio makes, one typed function each (the components call these, never a path). */

export const listModels = (): Promise<List<Model>> => api<List<Model>>('/v1/models');

/** Threads newest first; `query` searches titles. */
export const listThreads = (query: string): Promise<List<Thread>> =>
  api<List<Thread>>(`/v1/threads?limit=100${query ? `&q=${encodeURIComponent(query)}` : ''}`);

export const createThread = (metadata: ThreadMetadata): Promise<Thread> =>
  api<Thread>('/v1/threads', { method: 'POST', json: { metadata } });

/** Changes a thread's title (null clears it) or its metadata, whichever is given. */
export const updateThread = (
  id: string,
  patch: { title?: string | null; metadata?: ThreadMetadata },
): Promise<Thread> => api<Thread>(`/v1/threads/${id}`, { method: 'PATCH', json: patch });

export const deleteThread = (id: string): Promise<unknown> => api(`/v1/threads/${id}`, { method: 'DELETE' });

export const deleteFile = (threadId: string, path: string): Promise<unknown> =>
  api(fileUrl(threadId, path), { method: 'DELETE' });

/** A thread with its runs. */
export const getThread = (id: string): Promise<Thread> => api<Thread>(`/v1/threads/${id}`);

export const listFiles = (threadId: string): Promise<List<WorkspaceFile>> =>
  api<List<WorkspaceFile>>(`/v1/threads/${threadId}/files`);

/** One page of a thread's stored events, after the event id `after` (the first page without). */
export const threadEventsPage = (
  threadId: string,
  after: string | undefined,
): Promise<List<AgentEvent> & { last_id?: string | null }> =>
  api(`/v1/threads/${threadId}/events${after ? `?after=${encodeURIComponent(after)}` : ''}`);

/** Starts a run on the thread: a question (`messages`, …) or a cell to run again (`cell`). */
export const startRun = (threadId: string, body: Record<string, unknown>): Promise<Run> =>
  api<Run>(`/v1/threads/${threadId}/runs`, { method: 'POST', json: body });

export const getRun = (threadId: string, runId: string): Promise<Run> =>
  api<Run>(`/v1/threads/${threadId}/runs/${runId}`);

export const cancelRun = (threadId: string, runId: string): Promise<unknown> =>
  api(`/v1/threads/${threadId}/runs/${runId}/cancel`, { method: 'POST' });

/** Rows `offset` to `offset + limit` of a preview; `url` is a file's preview URL (it may carry a sheet or table). */
export const previewPage = (url: string, offset: number, limit: number): Promise<Preview> =>
  api<Preview>(`${url}${url.includes('?') ? '&' : '?'}offset=${offset}&limit=${limit}`);

/* Database connections (docs/connections.md): the operator names them; a key lists, reads and extracts. */

export const listConnections = (): Promise<List<Connection>> => api<List<Connection>>('/v1/connections');

export const connectionSchema = (id: string): Promise<ConnectionSchema> =>
  api<ConnectionSchema>(`/v1/connections/${encodeURIComponent(id)}/schema`);

/** One read-only statement; at most `maxRows` rows (and the connection's own cap). */
export const queryConnection = (id: string, sql: string, maxRows: number): Promise<ConnectionQueryResult> =>
  api<ConnectionQueryResult>(`/v1/connections/${encodeURIComponent(id)}/query`, {
    method: 'POST',
    json: { sql, max_rows: maxRows },
  });

/** Writes a table's (or a statement's) rows into the thread's workspace as `<name>.parquet`. */
export const extractConnection = (
  threadId: string,
  connectionId: string,
  source: { table: string } | { sql: string },
  name: string,
): Promise<ConnectionExtract> =>
  api<ConnectionExtract>(`/v1/threads/${threadId}/connections/${encodeURIComponent(connectionId)}/extract`, {
    method: 'POST',
    json: { ...source, name },
  });
