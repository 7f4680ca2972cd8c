import type { z } from 'zod';

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

/** A non-JSON answer: its description and content type (and, for an event stream, each event's schema). */
export const rawAnswer = (description: string, contentType: string, events?: z.ZodTypeAny) => ({
  description,
  contentType,
  ...(events ? { events } : {}),
});
