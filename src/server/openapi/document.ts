import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ExecResultSchema, WireErrorSchema } from '../wire/objects.ts';
import type { ApiRoute } from './api-route.ts';

const schema = (zod: z.ZodTypeAny) => {
  const { $schema: _, ...rest } = zodToJsonSchema(zod, {
    target: 'openApi3',
    $refStrategy: 'none',
    // What the client sends: a query's JSON text (`filter`) is a string on the wire.
    pipeStrategy: 'input',
  }) as Record<string, unknown>;
  return rest;
};

function operation(route: ApiRoute) {
  const parameters: object[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (route.query) {
    const query = schema(route.query) as { properties?: Record<string, object> };
    for (const [name, property] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema: property });
    }
  }
  const responses: Record<string, object> = {};
  const response = route.response;
  const okStatus = String(route.status ?? 200);
  if (response === undefined)
    responses[okStatus] = {
      description: 'OK',
      content: { 'application/json': { schema: { type: 'object' } } },
    };
  else if ('contentType' in response && typeof response.contentType === 'string') {
    const events = 'events' in response ? (response.events as z.ZodTypeAny | undefined) : undefined;
    responses[okStatus] = {
      description: response.description,
      content: { [response.contentType]: events ? { schema: schema(events) } : {} },
    };
  } else
    responses[okStatus] = {
      description: 'OK',
      content: { 'application/json': { schema: schema(response as z.ZodTypeAny) } },
    };
  for (const status of route.public ? (route.errors ?? []) : [400, 401, 404, ...(route.errors ?? [])]) {
    responses[String(status)] = { $ref: '#/components/responses/Error' };
  }
  const body =
    route.body === undefined
      ? undefined
      : route.body === 'multipart'
        ? {
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string' } },
                  required: ['file'],
                },
              },
            },
          }
        : { required: true, content: { 'application/json': { schema: schema(route.body) } } };
  return {
    summary: route.summary,
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of `routes`: each one's operation, with the error shape and security they share. */
export function buildOpenApiDocument(routes: readonly ApiRoute[]): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Analyst',
      version: '0.1.0',
      description:
        "A self-hosted data-analysis agent. OpenAI-compatible chat completions with DeepAnalyze's extensions (file_ids, thread_id, files), threads as workspaces, runs owned by the service, and a safe Python execution API.",
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      responses: {
        Error: {
          description: "OpenAI's error shape",
          content: { 'application/json': { schema: schema(WireErrorSchema) } },
        },
      },
      schemas: { ExecResult: schema(ExecResultSchema) },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
