/** The OpenAPI 3.1 description of the HTTP API, served at /openapi.json. */

const error = { $ref: '#/components/responses/Error' };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const ok = (description: string, schema: object = { type: 'object' }) => ({ description, ...json(schema) });
const threadId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^thread-[0-9a-f]{24}$' },
};
const fileId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^file-[0-9a-f]{24}$' },
};
const standard = { '400': error, '401': error, '404': error };

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Analyst',
    version: '0.1.0',
    description:
      "A self-hosted data-analysis agent. OpenAI-compatible chat completions with DeepAnalyze's extensions (file_ids, thread_id, files), threads as workspaces, and a safe Python execution API.",
  },
  servers: [{ url: '/' }],
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    responses: {
      Error: {
        description: "OpenAI's error shape",
        ...json({
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                param: { type: ['string', 'null'] },
                code: { type: ['string', 'null'] },
              },
              required: ['message', 'type', 'param', 'code'],
            },
          },
        }),
      },
    },
    schemas: {
      ExecResult: {
        type: 'object',
        required: [
          'status',
          'exit_code',
          'output',
          'output_bytes',
          'output_complete',
          'input_complete',
          'duration_ms',
          'artifacts',
          'source_query_ids',
        ],
        properties: {
          status: { enum: ['ok', 'error', 'timeout', 'killed', 'cancelled', 'unavailable'] },
          exit_code: { type: ['integer', 'null'] },
          output: { type: 'string' },
          output_bytes: { type: 'integer' },
          output_complete: { type: 'boolean' },
          input_complete: { type: 'boolean' },
          duration_ms: { type: 'number' },
          artifacts: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                path: { type: 'string' },
                bytes: { type: 'integer' },
                mime: { type: 'string' },
                change: { enum: ['created', 'modified'] },
              },
            },
          },
          source_query_ids: { type: 'array', items: { type: 'string' } },
          message: { type: 'string' },
        },
      },
      ChatCompletionRequest: {
        type: 'object',
        required: ['messages'],
        properties: {
          model: { type: 'string' },
          messages: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                role: { type: 'string' },
                content: {},
                file_ids: { type: 'array', items: { type: 'string' } },
                thread_id: { type: 'string' },
              },
            },
          },
          stream: { type: 'boolean' },
          file_ids: { type: 'array', items: { type: 'string' } },
          thread_id: { type: 'string' },
          // Sampling, forwarded to the model (unset: the model's defaults).
          temperature: { type: 'number', minimum: 0, maximum: 2 },
          top_p: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
          max_tokens: { type: 'integer', minimum: 1 },
          max_completion_tokens: { type: 'integer', minimum: 1 },
          seed: { type: 'integer' },
          presence_penalty: { type: 'number', minimum: -2, maximum: 2 },
          frequency_penalty: { type: 'number', minimum: -2, maximum: 2 },
          stop: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 16 }] },
          logit_bias: { type: 'object', additionalProperties: { type: 'number' } },
          top_k: { type: 'integer', minimum: -1, description: 'vLLM' },
          min_p: { type: 'number', minimum: 0, maximum: 1, description: 'vLLM' },
          repetition_penalty: { type: 'number', exclusiveMinimum: 0, description: 'vLLM' },
          length_penalty: { type: 'number', description: 'vLLM' },
          min_tokens: { type: 'integer', minimum: 0, description: 'vLLM' },
          bad_words: { type: 'array', items: { type: 'string' }, description: 'vLLM' },
          grounding: {
            type: 'string',
            enum: ['check', 'repair', 'off'],
            description:
              'check (default): the answer-grounding of the final answer comes back as `grounding`; repair: one more round asks the model to compute or remove numbers that appear in no output',
          },
        },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    '/health': { get: { summary: 'Liveness', security: [], responses: { '200': ok('alive') } } },
    '/health/ready': {
      get: {
        summary: 'Readiness: store and sandbox engine',
        security: [],
        responses: { '200': ok('ready'), '503': ok('not ready') },
      },
    },
    '/v1/models': { get: { summary: 'List models', responses: { '200': ok('models'), ...standard } } },
    '/v1/models/{id}': {
      get: {
        summary: 'A model',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': ok('model'), ...standard },
      },
    },
    '/v1/files': {
      get: { summary: 'List uploaded files', responses: { '200': ok('files'), ...standard } },
      post: {
        summary: 'Upload a file (multipart: file, purpose)',
        requestBody: {
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string' } },
                required: ['file'],
              },
            },
          },
        },
        responses: { '200': ok('the file object'), '413': error, ...standard },
      },
    },
    '/v1/files/{id}': {
      get: { summary: 'A file', parameters: [fileId], responses: { '200': ok('file'), ...standard } },
      delete: {
        summary: 'Delete a file',
        parameters: [fileId],
        responses: { '200': ok('deleted'), ...standard },
      },
    },
    '/v1/files/{id}/content': {
      get: {
        summary: "A file's bytes",
        parameters: [fileId],
        responses: { '200': { description: 'bytes' }, ...standard },
      },
    },
    '/v1/chat/completions': {
      post: {
        summary: 'Run an analysis (streaming with stream: true)',
        requestBody: json({ $ref: '#/components/schemas/ChatCompletionRequest' }),
        responses: {
          '200': { description: 'chat.completion, or text/event-stream of chat.completion.chunk' },
          '409': error,
          '502': error,
          '504': error,
          ...standard,
        },
      },
    },
    '/v1/threads': { get: { summary: 'List threads', responses: { '200': ok('threads'), ...standard } } },
    '/v1/threads/{id}': {
      get: {
        summary: 'A thread and its runs',
        parameters: [threadId],
        responses: { '200': ok('thread'), ...standard },
      },
      delete: {
        summary: 'Delete a thread and its workspace',
        parameters: [threadId],
        responses: { '200': ok('deleted'), ...standard },
      },
    },
    '/v1/threads/{id}/messages': {
      get: { summary: 'Messages', parameters: [threadId], responses: { '200': ok('messages'), ...standard } },
    },
    '/v1/threads/{id}/events': {
      get: {
        summary: 'Every stored event of every run',
        parameters: [threadId],
        responses: { '200': ok('events'), ...standard },
      },
    },
    '/v1/threads/{id}/files': {
      get: {
        summary: 'Workspace files',
        parameters: [threadId],
        responses: { '200': ok('files'), ...standard },
      },
      post: {
        summary: 'Upload into the workspace (multipart: file)',
        parameters: [threadId],
        responses: { '200': ok('the stored path'), '413': error, ...standard },
      },
    },
    '/v1/threads/{id}/files/{path}': {
      get: {
        summary: 'Download a workspace file (never through a symlink)',
        parameters: [threadId, { name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'bytes' }, ...standard },
      },
    },
    '/v1/threads/{id}/exec': {
      post: {
        summary: "Run a cell in the thread's sandbox",
        parameters: [threadId],
        requestBody: json({
          type: 'object',
          required: ['code'],
          properties: {
            code: { type: 'string' },
            timeout: { type: 'number', minimum: 1, maximum: 30 },
            stateful: { type: 'boolean' },
          },
        }),
        responses: { '200': ok('ExecResult', { $ref: '#/components/schemas/ExecResult' }), ...standard },
      },
    },
    '/v1/threads/{id}/cancel': {
      post: {
        summary: 'Cancel the running analysis',
        parameters: [threadId],
        responses: { '200': ok('cancelled'), ...standard },
      },
    },
    '/v1/threads/{id}/report': {
      get: {
        summary: 'Report',
        parameters: [threadId, { name: 'format', in: 'query', schema: { enum: ['md', 'html', 'pdf'] } }],
        responses: { '200': { description: 'the report' }, ...standard },
      },
    },
    '/v1/threads/{id}/notebook': {
      get: {
        summary: 'Jupyter notebook (nbformat 4.5)',
        parameters: [threadId],
        responses: { '200': { description: 'ipynb' }, ...standard },
      },
    },
    '/v1/exec': {
      post: {
        summary: 'One-shot execution in a fresh sandbox',
        requestBody: json({
          type: 'object',
          required: ['code'],
          properties: {
            code: { type: 'string' },
            timeout: { type: 'number' },
            data: {},
            results: {},
            source_query_ids: { type: 'array', items: { type: 'string' } },
          },
        }),
        responses: { '200': ok('ExecResult', { $ref: '#/components/schemas/ExecResult' }), ...standard },
      },
    },
    '/v1/admin/threads-stats': {
      get: {
        summary: "Counts of the caller's threads, runs and files",
        responses: { '200': ok('stats'), ...standard },
      },
    },
    '/v1/admin/cleanup-threads': {
      post: {
        summary: "Delete the caller's idle threads",
        requestBody: json({ type: 'object', properties: { older_than_hours: { type: 'number' } } }),
        responses: { '200': ok('deleted ids'), ...standard },
      },
    },
    '/v1/admin/sandbox': {
      get: { summary: 'Sandbox engine, image and pool', responses: { '200': ok('status'), ...standard } },
    },
  },
} as const;
