import type { FastifyRequest } from 'fastify';
import type { ServerConfig } from './config.ts';

/** The base URL clients reach this server at: ANALYST_PUBLIC_URL, else the request's own. */
export function baseUrl(request: FastifyRequest, config: ServerConfig): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** The download URL of a workspace file. */
export function threadFileUrl(base: string, threadId: string, path: string): string {
  return `${base}/v1/threads/${threadId}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}
