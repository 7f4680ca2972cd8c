import { AnalystError } from '../../errors/index.ts';

/** An exclusive write found the path taken (HTTP 409). */
export class WorkspaceFileExistsError extends AnalystError {
  readonly code = 'workspace_file_exists';
  readonly status = 409;
  override readonly type = 'invalid_request_error';
}
