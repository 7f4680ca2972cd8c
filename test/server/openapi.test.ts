import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp, REGISTERED_ROUTES } from '../../src/server/app.ts';
import { loadServerConfig } from '../../src/server/config.ts';
import type { AppDeps } from '../../src/server/deps.ts';

/** The app built in-process with stand-in services (no route but /openapi.json is called). */
async function app() {
  const config = loadServerConfig({ host: '127.0.0.1', port: 0, dataDir: '/nonexistent' }, {});
  return buildApp({ config } as AppDeps, { logger: false });
}

describe('the OpenAPI document', () => {
  test('documents every API route the app registers, and nothing it does not', async () => {
    const server = await app();
    await server.ready();
    const registered = (server as unknown as Record<symbol, string[]>)
      [REGISTERED_ROUTES]!.filter((route) => / \/(v1|health|openapi\.json|mcp)/.test(route))
      .map((route) => route.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}'))
      .sort();
    const response = await server.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    assert.deepEqual(registered, documented);
    await server.close();
  });

  test('request and answer shapes come from the schemas the routes validate with', async () => {
    const server = await app();
    const document = (await server.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                { schema: { properties?: Record<string, unknown>; required?: string[] } }
              >;
            };
          }
        >
      >;
      components: { schemas: { ExecResult: { required: string[]; properties: Record<string, unknown> } } };
    };
    const chat =
      document.paths['/v1/chat/completions']!.post!.requestBody!.content['application/json']!.schema;
    assert.ok(chat.properties && 'file_ids' in chat.properties && 'background' in chat.properties);
    assert.deepEqual(chat.required, ['messages']);
    const run =
      document.paths['/v1/threads/{id}/runs']!.post!.requestBody!.content['application/json']!.schema;
    assert.ok(run.properties && 'cell' in run.properties && 'system' in run.properties);
    const exec = document.components.schemas.ExecResult;
    for (const field of [
      'status',
      'exit_code',
      'output',
      'output_bytes',
      'output_complete',
      'input_complete',
      'duration_ms',
      'artifacts',
      'source_query_ids',
    ]) {
      assert.ok(exec.required.includes(field), field);
    }
    assert.ok('error' in exec.properties && 'message' in exec.properties);
    await server.close();
  });
});
