import { AnalystError } from '../../errors/analyst-error.ts';

/** Why a statement on a database connection did not give rows. */
export type ConnectionErrorCode =
  | 'connection_read_only'
  | 'connection_statement'
  | 'connection_timeout'
  | 'connection_login_refused'
  | 'connection_unreachable'
  | 'connection_query_failed';

const STATUS: Record<ConnectionErrorCode, number> = {
  connection_read_only: 400,
  connection_statement: 400,
  connection_timeout: 504,
  connection_login_refused: 502,
  connection_unreachable: 502,
  connection_query_failed: 400,
};

/**
 * A statement on an operator-configured database connection failed. The message is built
 * by Analyst (never a driver's text that could carry the URL) or a database's own error
 * passed through `redact`, so it never contains a password.
 */
export class ConnectionError extends AnalystError {
  readonly code: ConnectionErrorCode;
  readonly status: number;
  override readonly type: string;

  constructor(code: ConnectionErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { param: 'sql' });
    // The cause (a driver error) can carry the URL or password: kept off the object on purpose.
    void options;
    this.code = code;
    this.status = STATUS[code];
    this.type = this.status < 500 ? 'invalid_request_error' : 'server_error';
  }
}
