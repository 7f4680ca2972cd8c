import { CleanupBodySchema } from '../wire/requests.ts';
import type { ApiRoute } from './api-route.ts';

/** Housekeeping of the caller's own data, and the sandbox engine's state. */
export const ADMIN_ROUTES: ApiRoute[] = [
  {
    method: 'get',
    path: '/v1/admin/threads-stats',
    summary: "Counts of the caller's threads, runs and files",
  },
  {
    method: 'post',
    path: '/v1/admin/cleanup-threads',
    summary: "Delete the caller's idle threads",
    body: CleanupBodySchema,
  },
  { method: 'get', path: '/v1/admin/sandbox', summary: 'Sandbox engine, image and pool' },
];
