import { AnalystError, isAnalystError } from '../errors/index.ts';

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export interface WireError {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Maps any failure to an HTTP status and OpenAI's error shape, in one place. */
export function toWireError(error: unknown): { status: number; body: WireError } {
  if (isAnalystError(error)) {
    const status = error.status >= 400 ? error.status : 500;
    return { status, body: wire(error.message, error.type, error.param, error.code) };
  }
  const fastify = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (fastify.code === 'FST_ERR_BAD_URL') {
    return {
      status: 400,
      body: wire('the URL is not valid percent-encoding', 'invalid_request_error', null, 'bad_url'),
    };
  }
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const status = fastify.statusCode;
    const code =
      status === 413
        ? 'payload_too_large'
        : status === 415
          ? 'unsupported_media_type'
          : (fastify.code?.toLowerCase() ?? 'invalid_request');
    const message =
      fastify.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fastify.message ?? '')
        ? `the request body is not valid JSON: ${fastify.message}`
        : (fastify.message ?? 'bad request');
    return { status, body: wire(message, 'invalid_request_error', null, code) };
  }
  return { status: 500, body: wire('internal server error', 'server_error', null, 'internal_error') };
}

export function wire(message: string, type: string, param: string | null, code: string | null): WireError {
  return { error: { message, type, param, code } };
}

export { AnalystError };
