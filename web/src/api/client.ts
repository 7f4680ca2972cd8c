/**
 * The HTTP API as the browser uses it: the shared typed client (src/client), with the key of
 * this tab. The key lives in memory and in sessionStorage for this tab only — never in
 * localStorage. A 401 asks the person for a key (through the prompt `setKeyPrompt` installs)
 * and the client sends the request again with it. Uploads go over XMLHttpRequest, which
 * reports their progress.
 */

import { AnalystClient, ApiError, cancelled, type UploadTransport } from '../../../src/client/index.ts';

export { ApiError };

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

/**
 * After a 401 to a request sent with `sent`: the key to try next. When another request set a
 * new key meanwhile, that one (no question asked); otherwise the person is asked, told that
 * the key was refused when one was sent. Without a prompt the 401 stands.
 */
async function nextKey(sent: string | undefined): Promise<boolean> {
  if (!prompt) return false;
  if (apiKey === sent) setKey(await askForKey(sent !== undefined));
  return true;
}

/** An upload over XMLHttpRequest: fetch cannot report an upload's progress. */
const uploadWithProgress: UploadTransport = (request) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    if (request.abortSignal?.aborted) return reject(cancelled());
    request.abortSignal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.onabort = () => reject(cancelled());
    xhr.onerror = () => reject(new ApiError('network', { status: 0, code: 'network' }));
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.open('POST', request.url);
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) request.onProgress?.(event.loaded / event.total);
    };
    xhr.send(request.body);
  });

/** Every API call of the studio goes through this one client (components call its methods, never a path). */
export const api = new AnalystClient({
  baseUrl: '',
  apiKey: () => apiKey,
  onUnauthorized: nextKey,
  upload: uploadWithProgress,
});

/** Downloads an API resource as a file (with the key, so it works on servers that need one). */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await api.resource(path);
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
    url = api.resource(path).then(async (response) => URL.createObjectURL(await response.blob()));
    url.catch(() => blobs.delete(key));
    blobs.set(key, url);
  }
  return url;
}
