import {
  ConnectionObjectSchema,
  ConnectionQueryBodySchema,
  ConnectionQueryResultSchema,
  ConnectionSchemaObjectSchema,
  ExtractBodySchema,
  ExtractResultSchema,
} from '../wire/connections.ts';
import { listOf } from '../wire/objects.ts';
import type { ApiRoute } from './api-route.ts';

/** Database connections: what a key may use, their schemas, read-only queries, extracts into a workspace. */
export const CONNECTION_ROUTES: ApiRoute[] = [
  {
    method: 'get',
    path: '/v1/connections',
    summary: 'Database connections this key may use (no secrets)',
    response: listOf(ConnectionObjectSchema),
  },
  {
    method: 'get',
    path: '/v1/connections/{id}/schema',
    summary: "A connection's schemas, tables, columns with types and row estimates",
    response: ConnectionSchemaObjectSchema,
    errors: [502, 504],
  },
  {
    method: 'post',
    path: '/v1/connections/{id}/query',
    summary: 'Run one read-only statement on a connection',
    body: ConnectionQueryBodySchema,
    response: ConnectionQueryResultSchema,
    errors: [502, 504],
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/connections/{connection_id}/extract',
    summary: "Bring a connection's table or a query's result into the thread's workspace as Parquet",
    body: ExtractBodySchema,
    response: ExtractResultSchema,
    errors: [413, 502, 504],
  },
];
