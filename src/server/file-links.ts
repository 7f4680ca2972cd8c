import type { ServerConfig } from './config.ts';

/**
 * The base of the links the server hands out: ANALYST_PUBLIC_URL when set, else none, so
 * links are relative to the server (`/v1/threads/…`). A client's Host header never makes
 * them: a forged one would otherwise point other readers of a report elsewhere.
 */
export function baseUrl(config: ServerConfig): string {
  return config.publicUrl ?? '';
}

/** The download URL of a workspace file. */
export function threadFileUrl(base: string, threadId: string, path: string): string {
  return `${base}/v1/threads/${threadId}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}
