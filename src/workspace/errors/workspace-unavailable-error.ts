import { AnalystError } from '../../errors/index.ts';

/** Workspaces cannot be made or opened here; the message says why and how to fix it (HTTP 503). */
export class WorkspaceUnavailableError extends AnalystError {
  readonly code = 'workspace_unavailable';
  readonly status = 503;
}
