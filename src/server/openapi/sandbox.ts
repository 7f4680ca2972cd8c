import { ExecResultSchema, SandboxRestartSchema } from '../wire/objects.ts';
import { ExecBodySchema, ThreadExecBodySchema } from '../wire/requests.ts';
import type { ApiRoute } from './api-route.ts';

/** Python cells run directly: in a thread's sandbox, or once in a fresh one. */
export const SANDBOX_ROUTES: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/threads/{id}/exec',
    summary:
      "Run a cell in the thread's sandbox (with stream: true, SSE of execution-output events then execution-end with the ExecResult)",
    body: ThreadExecBodySchema,
    response: ExecResultSchema,
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/sandbox/restart',
    summary: "Restart the thread's sandbox (its kernel and variables; the workspace stays)",
    response: SandboxRestartSchema,
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/exec',
    summary: 'One-shot execution in a fresh sandbox',
    body: ExecBodySchema,
    response: ExecResultSchema,
  },
];
