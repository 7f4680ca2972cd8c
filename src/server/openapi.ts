import { ADMIN_ROUTES } from './openapi/admin.ts';
import type { ApiRoute } from './openapi/api-route.ts';
import { CONNECTION_ROUTES } from './openapi/connections.ts';
import { buildOpenApiDocument } from './openapi/document.ts';
import { FILE_ROUTES } from './openapi/files.ts';
import { MCP_ROUTES } from './openapi/mcp.ts';
import { SANDBOX_ROUTES } from './openapi/sandbox.ts';
import { SERVICE_ROUTES } from './openapi/service.ts';
import { THREAD_ROUTES } from './openapi/threads.ts';
import { WORKSPACE_ROUTES } from './openapi/workspace.ts';

export type { ApiRoute } from './openapi/api-route.ts';

/** Every route of the HTTP API (see ApiRoute), one file per area in openapi/. */
export const API_ROUTES: ApiRoute[] = [
  ...SERVICE_ROUTES,
  ...FILE_ROUTES,
  ...THREAD_ROUTES,
  ...WORKSPACE_ROUTES,
  ...SANDBOX_ROUTES,
  ...ADMIN_ROUTES,
  ...MCP_ROUTES,
  ...CONNECTION_ROUTES,
];

let document: object | undefined;

/** The OpenAPI 3.1 description of the HTTP API, served at /openapi.json. */
export function openApiDocument(): object {
  document ??= buildOpenApiDocument(API_ROUTES);
  return document;
}
