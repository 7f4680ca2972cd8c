import { ConnectionError } from '../errors/connection-error.ts';
import { redact } from '../redact.ts';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
]);

/** Errors on the way to the server (no database message to pass on): one clear sentence each. */
export function networkError(id: string, error: unknown): ConnectionError | undefined {
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? '');
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    return new ConnectionError(
      'connection_unreachable',
      `connection "${id}": the database server cannot be reached or closed the connection (${code}); ask the operator whether it is running`,
    );
  }
  if (/Connection terminated|connection lost|server closed the connection|socket hang up/i.test(message)) {
    return new ConnectionError(
      'connection_unreachable',
      `connection "${id}": the database server closed the connection during the statement; ask the operator whether it is running`,
    );
  }
  return undefined;
}

export function loginRefused(id: string): ConnectionError {
  return new ConnectionError(
    'connection_login_refused',
    `connection "${id}": the database refused the login (user or password wrong, or no access to the database); the operator must fix the connection's URL`,
  );
}

export function timedOut(id: string, timeoutMs: number): ConnectionError {
  return new ConnectionError(
    'connection_timeout',
    `connection "${id}": the statement ran longer than ${Math.round(timeoutMs / 100) / 10} s and was cancelled; aggregate in SQL or add a WHERE/LIMIT`,
  );
}

export function readOnlyRefused(id: string): ConnectionError {
  return new ConnectionError(
    'connection_read_only',
    `connection "${id}" is read-only: the database refused a statement that would write`,
  );
}

export function queryFailed(id: string, message: string, secrets: readonly string[]): ConnectionError {
  return new ConnectionError(
    'connection_query_failed',
    `connection "${id}": ${redact(message, secrets).slice(0, 1000)}`,
  );
}
