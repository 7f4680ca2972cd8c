import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ModelRequest, ModelStreamPart, ToolCall } from '../../src/llm/model.ts';
import { OpenAICompatibleModel } from '../../src/llm/openai-compatible.ts';
import { chatRequests, collect, modelFor, withRawServer, withScriptedModel } from './helpers.ts';

const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content }],
  ...extra,
});

const textOf = (parts: ModelStreamPart[]): string =>
  parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');

/** Assembles tool-call deltas by index, the way the agent does. */
function assembleCalls(parts: ModelStreamPart[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
    const call = calls[part.index]!;
    if (part.id) call.id = part.id;
    if (part.name) call.function.name += part.name;
    call.function.arguments += part.argumentsDelta ?? '';
  }
  return calls;
}

describe('OpenAICompatibleModel against the scripted model', () => {
  test('text deltas add up to the scripted text, with one finish at the end', async () => {
    const content = '<Analyze>\n先看数据的结构，再计算每列的缺失比例。\n</Analyze>';
    await withScriptedModel(
      { turns: [{ content, chunk_chars: 4, usage: { prompt_tokens: 11, completion_tokens: 9 } }] },
      async (server) => {
        const parts = await collect(modelFor(server).stream(ask('分析')));
        assert.equal(textOf(parts), content);
        assert.ok(parts.filter((p) => p.type === 'text-delta').length > 5, 'the text arrived in pieces');
        const finishes = parts.filter((p) => p.type === 'finish');
        assert.equal(finishes.length, 1);
        assert.deepEqual(parts.at(-1), {
          type: 'finish',
          finishReason: 'stop',
          stopReason: null,
          usage: { promptTokens: 11, completionTokens: 9 },
        });
      },
    );
  });

  test('a stop string cuts the text and is reported as stopReason', async () => {
    const content = '<Code>\ndf.describe()\n</Code>\n<Answer>too far</Answer>';
    await withScriptedModel({ turns: [{ content }] }, async (server) => {
      const parts = await collect(modelFor(server).stream(ask('go', { stop: ['</Code>'] })));
      assert.equal(textOf(parts), '<Code>\ndf.describe()\n');
      const finish = parts.at(-1);
      assert.equal(finish?.type === 'finish' && finish.stopReason, '</Code>');
      assert.equal(finish?.type === 'finish' && finish.finishReason, 'stop');
    });
  });

  test('a token-id stop comes back as a number', async () => {
    await withScriptedModel({ turns: [{ content: 'done', stop_reason: 151645 }] }, async (server) => {
      const parts = await collect(modelFor(server).stream(ask('go')));
      const finish = parts.at(-1);
      assert.equal(finish?.type === 'finish' && finish.stopReason, 151645);
    });
  });

  test('DeepAnalyze request fields reach the server: stop_token_ids, extra body, the execute role', async () => {
    const expect = {
      last_role: 'execute',
      stop_includes: '</Code>',
      max_tokens_at_least: 2048,
      body_has: { add_generation_prompt: false, stop_token_ids: [151676, 151645], temperature: 0.4 },
    };
    await withScriptedModel({ turns: [{ expect, content: '<Answer>3</Answer>' }] }, async (server) => {
      const request: ModelRequest = {
        messages: [
          { role: 'user', content: '# Instruction\ncount' },
          { role: 'assistant', content: '<Code>\nprint(3)\n</Code>' },
          { role: 'execute', content: '3\n' },
        ],
        stop: ['</Code>'],
        stopTokenIds: [151676, 151645],
        extraBody: { add_generation_prompt: false },
        maxTokens: 4096,
        temperature: 0.4,
      };
      const parts = await collect(modelFor(server).stream(request));
      assert.deepEqual(server.failures, []);
      assert.equal(textOf(parts), '<Answer>3</Answer>');
      const [body] = chatRequests(server);
      assert.deepEqual(body!.messages, [
        { role: 'user', content: '# Instruction\ncount' },
        { role: 'assistant', content: '<Code>\nprint(3)\n</Code>' },
        { role: 'execute', content: '3\n' },
      ]);
      assert.equal(body!.model, 'scripted');
      assert.equal(body!.stream, true);
      assert.deepEqual(body!.stream_options, { include_usage: true });
    });
  });

  test('tool-call deltas assemble into whole calls', async () => {
    const script = {
      turns: [
        {
          content: 'Let me query.',
          tool_calls: [
            { id: 'call_q', name: 'query', arguments: { sql: 'SELECT avg(age) FROM people' } },
            { id: 'call_p', name: 'python_exec', arguments: { code: 'print(data[0]["rid"])' } },
          ],
        },
      ],
    };
    await withScriptedModel(script, async (server) => {
      const tools = [
        {
          type: 'function' as const,
          function: { name: 'query', description: 'SQL', parameters: { type: 'object' } },
        },
      ];
      const parts = await collect(modelFor(server).stream(ask('avg age?', { tools })));
      assert.equal(textOf(parts), 'Let me query.');
      assert.deepEqual(assembleCalls(parts), [
        {
          id: 'call_q',
          type: 'function',
          function: { name: 'query', arguments: '{"sql":"SELECT avg(age) FROM people"}' },
        },
        {
          id: 'call_p',
          type: 'function',
          function: { name: 'python_exec', arguments: '{"code":"print(data[0][\\"rid\\"])"}' },
        },
      ]);
      const finish = parts.at(-1);
      assert.equal(finish?.type === 'finish' && finish.finishReason, 'tool_calls');
      assert.deepEqual(chatRequests(server)[0]!.tools, tools);
    });
  });

  test('complete() returns the whole answer without streaming', async () => {
    const script = {
      turns: [
        {
          content: 'partial',
          finish_reason: 'length' as const,
          usage: { prompt_tokens: 5, completion_tokens: 1 },
          tool_calls: [{ id: 'c1', name: 'query', arguments: '{"sql": ' }],
        },
      ],
    };
    await withScriptedModel(script, async (server) => {
      const response = await modelFor(server).complete(ask('q', { stopTokenIds: [7] }));
      assert.deepEqual(response, {
        text: 'partial',
        toolCalls: [{ id: 'c1', type: 'function', function: { name: 'query', arguments: '{"sql": ' } }],
        finishReason: 'length',
        stopReason: null,
        usage: { promptTokens: 5, completionTokens: 1 },
      });
      const [body] = chatRequests(server);
      assert.equal(body!.stream, false);
      assert.deepEqual(body!.stop_token_ids, [7]);
    });
  });

  test('complete() reports a stop string like the stream does', async () => {
    await withScriptedModel({ turns: [{ content: 'abc</Code>def' }] }, async (server) => {
      const response = await modelFor(server).complete(ask('q', { stop: ['</Code>'] }));
      assert.equal(response.text, 'abc');
      assert.equal(response.stopReason, '</Code>');
    });
  });

  test('stopping early (break) aborts the upstream request', async () => {
    let closedEarly: Promise<boolean> | undefined;
    await withRawServer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(
          () => response.write('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'),
          5,
        );
        closedEarly = new Promise((resolve) =>
          response.on('close', () => {
            clearInterval(timer);
            resolve(!response.writableEnded);
          }),
        );
      },
      async (baseUrl) => {
        const model = new OpenAICompatibleModel({ id: 'm', baseUrl, upstreamModel: 'm' });
        for await (const part of model.stream(ask('q'))) if (part.type === 'text-delta') break;
        assert.equal(await closedEarly, true, 'the upstream saw the connection close mid-answer');
      },
    );
  });
});
