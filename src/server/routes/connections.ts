import type { FastifyInstance } from 'fastify';
import { extractToWorkspace, registryConnection } from '../../connections/extract.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { validate } from '../validate.ts';
import { ConnectionQueryBodySchema, ExtractBodySchema } from '../wire/connections.ts';

type IdParams = { Params: { id: string } };
type ExtractParams = { Params: { id: string; connection_id: string } };

/**
 * The operator's database connections, each visible only to the keys it names (404 for any
 * other): list, describe, query (read-only), and bring a table or a result into a thread's
 * workspace as Parquet. No route creates or changes a connection.
 */
export function registerConnectionRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/connections', async (request) => ({
    object: 'list',
    data: deps.connections.list(request.owner).map((c) => ({ ...c, object: 'connection' })),
  }));

  app.get<IdParams>('/v1/connections/:id/schema', async (request) => {
    const id = request.params.id;
    const tables = await deps.connections.schema(request.owner, id);
    return { object: 'connection.schema', connection_id: id, tables };
  });

  app.post<IdParams>('/v1/connections/:id/query', async (request) => {
    const id = request.params.id;
    deps.connections.config(request.owner, id); // 404 before the body is judged
    const body = validate(ConnectionQueryBodySchema, request.body);
    const result = await deps.connections.query(request.owner, id, body.sql, { maxRows: body.max_rows });
    return {
      object: 'connection.query',
      connection_id: id,
      columns: result.columns,
      rows: result.rows,
      row_count: result.rows.length,
      truncated: result.truncated,
    };
  });

  app.post<ExtractParams>('/v1/threads/:id/connections/:connection_id/extract', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const connectionId = request.params.connection_id;
    deps.connections.config(request.owner, connectionId);
    const body = validate(ExtractBodySchema, request.body);
    const operation = deps.threads.locks.beginWrite(thread.id);
    try {
      const workspace = await deps.threads.workspace(thread);
      const source = body.table !== undefined ? { table: body.table } : { sql: body.sql! };
      const connection = registryConnection(deps.connections, request.owner, connectionId);
      const done = await extractToWorkspace(connection, source, body.name, workspace);
      await deps.threads.recordUsage(thread);
      return {
        object: 'connection.extract',
        connection_id: connectionId,
        path: done.path,
        url: threadFileUrl(baseUrl(deps.config), thread.id, done.path),
        row_count: done.rows,
        columns: done.columns,
        truncated: done.truncated,
        sql: done.sql,
      };
    } finally {
      operation.end();
    }
  });
}
