import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import OpenAI from 'openai';
import { InvalidInputError } from '../../src/errors/index.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { assembleChunks as assemble, chatRequests, collect, withScriptedModel } from './helpers.ts';

const client = (url: string): OpenAI => new OpenAI({ baseURL: url, apiKey: 'test', maxRetries: 0 });
const user = (content: string) => [{ role: 'user' as const, content }];

describe('scripted model with the official openai client', () => {
  test('streams Chinese text in code-point chunks, then finish, usage and [DONE]', async () => {
    const content = '数据共有 1,024 行，缺失值集中在「年龄」列。🙂';
    await withScriptedModel({ model: 'da', turns: [{ content, chunk_chars: 2 }] }, async (server) => {
      const stream = await client(server.url).chat.completions.create({
        model: 'da',
        messages: user('描述数据'),
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = await collect(stream);
      const first = chunks[0]!.choices[0]!.delta;
      assert.deepEqual(first, { role: 'assistant', content: '' });
      const pieces = chunks.map((c) => c.choices[0]?.delta.content).filter((p) => p);
      assert.ok(pieces.every((p) => [...p!].length <= 2));
      const assembled = assemble(chunks);
      assert.equal(assembled.text, content);
      assert.equal(assembled.finish, 'stop');
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.ok((last.usage?.completion_tokens ?? 0) > 0);
    });
  });

  test('answers without streaming: message, finish_reason, stop_reason and usage', async () => {
    await withScriptedModel(
      {
        turns: [
          { content: 'forty-two', stop_reason: 151645, usage: { prompt_tokens: 7, completion_tokens: 3 } },
        ],
      },
      async (server) => {
        const completion = await client(server.url).chat.completions.create({
          model: 'scripted',
          messages: user('answer?'),
        });
        const choice = completion.choices[0]!;
        assert.equal(choice.message.content, 'forty-two');
        assert.equal(choice.finish_reason, 'stop');
        assert.equal((choice as { stop_reason?: unknown }).stop_reason, 151645);
        assert.deepEqual(completion.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
      },
    );
  });

  test('streams tool calls: id and name first, then the arguments in pieces', async () => {
    const script = {
      turns: [
        {
          tool_calls: [
            { id: 'call_a', name: 'query', arguments: { sql: 'SELECT count(*) FROM t' } },
            { name: 'python_exec', arguments: '{"code": "print(1)"' },
          ],
        },
      ],
    };
    await withScriptedModel(script, async (server) => {
      const stream = await client(server.url).chat.completions.create({
        model: 'scripted',
        messages: user('count rows'),
        stream: true,
      });
      const chunks = await collect(stream);
      const { calls, finish } = assemble(chunks);
      assert.equal(finish, 'tool_calls');
      assert.deepEqual(calls[0], {
        id: 'call_a',
        name: 'query',
        arguments: '{"sql":"SELECT count(*) FROM t"}',
      });
      assert.equal(calls[1]!.name, 'python_exec');
      assert.equal(calls[1]!.arguments, '{"code": "print(1)"', 'a raw string is sent as written');
      const argumentChunks = chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments);
      assert.ok(argumentChunks.length > 2, 'arguments arrive in several chunks');
      assert.equal(chunks.at(-1)!.usage ?? undefined, undefined, 'no usage chunk unless asked for');
    });
  });

  test('non-streamed tool calls come back whole, with null content', async () => {
    await withScriptedModel(
      { turns: [{ tool_calls: [{ name: 'query', arguments: { sql: 'x' } }] }] },
      async (server) => {
        const completion = await client(server.url).chat.completions.create({
          model: 'scripted',
          messages: user('q'),
        });
        const message = completion.choices[0]!.message;
        assert.equal(message.content, null);
        const call = message.tool_calls![0]!;
        assert.equal(call.type, 'function');
        assert.equal(call.type === 'function' && call.function.arguments, '{"sql":"x"}');
        assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');
      },
    );
  });

  test('a stop string cuts the text before it and becomes the stop_reason', async () => {
    const content = '<Code>\nprint(1)\n</Code>\n<Answer>never sent</Answer>';
    await withScriptedModel({ turns: [{ content }, { content }] }, async (server) => {
      const openai = client(server.url);
      const streamed = assemble(
        await collect(
          await openai.chat.completions.create({
            model: 'scripted',
            messages: user('go'),
            stop: ['</Answer>', '</Code>'],
            stream: true,
          }),
        ),
      );
      assert.equal(streamed.text, '<Code>\nprint(1)\n');
      assert.equal(streamed.finish, 'stop');
      assert.equal(streamed.stopReason, '</Code>');
      const whole = await openai.chat.completions.create({
        model: 'scripted',
        messages: user('go'),
        stop: '</Code>',
      });
      assert.equal(whole.choices[0]!.message.content, '<Code>\nprint(1)\n');
      assert.equal((whole.choices[0] as { stop_reason?: unknown }).stop_reason, '</Code>');
    });
  });

  test('lists its model, and records requests with extra body fields in the log', async () => {
    await withScriptedModel({ model: 'DeepAnalyze-8B', turns: [{ content: 'ok' }] }, async (server) => {
      const openai = client(server.url);
      const models = await openai.models.list();
      assert.deepEqual(
        models.data.map((m) => m.id),
        ['DeepAnalyze-8B'],
      );
      await openai.chat.completions.create({
        model: 'DeepAnalyze-8B',
        messages: user('hi'),
        // @ts-expect-error vLLM extensions are not in OpenAI's types
        stop_token_ids: [151676, 151645],
        add_generation_prompt: false,
      });
      const [body] = chatRequests(server);
      assert.deepEqual(body!.stop_token_ids, [151676, 151645]);
      assert.equal(body!.add_generation_prompt, false);
      const log = (await (await fetch(server.url.replace(/\/v1$/, '/_scripted/log'))).json()) as {
        requests: Array<{ method: string; path: string }>;
        failures: string[];
      };
      assert.deepEqual(
        log.requests.map((r) => `${r.method} ${r.path}`),
        ['GET /v1/models', 'POST /v1/chat/completions'],
      );
      assert.deepEqual(log.failures, []);
    });
  });

  test('a failed expectation is a 400 naming it, and is recorded', async () => {
    const script = {
      turns: [{ expect: { last_role: 'execute', body_has: { add_generation_prompt: false } }, content: 'x' }],
    };
    await withScriptedModel(script, async (server) => {
      await assert.rejects(
        client(server.url).chat.completions.create({ model: 'scripted', messages: user('hi') }),
        (error: unknown) =>
          error instanceof OpenAI.BadRequestError &&
          /expectation of turn 1 failed: last_role/.test(error.message),
      );
      assert.equal(server.failures.length, 1);
      assert.match(server.failures[0]!, /last_role: expected "execute", the last message has role "user"/);
    });
  });

  test('a request after the last turn gets 500 "script exhausted", recorded', async () => {
    await withScriptedModel({ turns: [{ content: 'a', times: 2 }] }, async (server) => {
      const openai = client(server.url);
      for (let i = 0; i < 2; i += 1) {
        const reply = await openai.chat.completions.create({ model: 'scripted', messages: user('q') });
        assert.equal(reply.choices[0]!.message.content, 'a');
      }
      await assert.rejects(
        openai.chat.completions.create({ model: 'scripted', messages: user('q') }),
        (error: unknown) =>
          error instanceof OpenAI.InternalServerError && /script exhausted/.test(error.message),
      );
      assert.match(server.failures.join('\n'), /script exhausted: request 3/);
    });
  });

  test('match mode serves the first turn whose `when` holds, regardless of order', async () => {
    const script = {
      mode: 'match' as const,
      turns: [
        { when: { last_role: 'execute' }, content: 'after execution' },
        { when: { has_tools: true }, content: 'with tools' },
        { content: 'fallback' },
      ],
    };
    await withScriptedModel(script, async (server) => {
      const openai = client(server.url);
      const ask = async (body: Record<string, unknown>) =>
        (await openai.chat.completions.create({ model: 'scripted', ...body } as never)).choices[0]!.message
          .content;
      const answers = await Promise.all([
        ask({ messages: [{ role: 'execute', content: '3' }] }),
        ask({ messages: user('q'), tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }),
        ask({ messages: user('q') }),
      ]);
      assert.deepEqual(answers, ['after execution', 'with tools', 'fallback']);
    });
  });

  test('bad bodies and unknown models get OpenAI-shaped errors', async () => {
    await withScriptedModel({ turns: [{ content: 'x' }] }, async (server) => {
      const post = (body: string) =>
        fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      const notJson = await post('{"messages": [');
      assert.equal(notJson.status, 400);
      assert.match(((await notJson.json()) as { error: { message: string } }).error.message, /not JSON/);
      const noMessages = await post('{"model": "scripted"}');
      assert.equal(noMessages.status, 400);
      assert.match(((await noMessages.json()) as { error: { message: string } }).error.message, /messages/);
      await assert.rejects(
        client(server.url).chat.completions.create({ model: 'gpt-4o', messages: user('q') }),
        (error: unknown) => error instanceof OpenAI.NotFoundError && /gpt-4o/.test(error.message),
      );
      assert.equal(server.failures.length, 3);
      const reply = await client(server.url).chat.completions.create({
        model: 'scripted',
        messages: user('q'),
      });
      assert.equal(reply.choices[0]!.message.content, 'x', 'rejected requests do not use up turns');
    });
  });

  test('scripted HTTP errors carry their status, message and headers', async () => {
    const script = { turns: [{ status: 429, error: 'slow down', headers: { 'retry-after': '3' } }] };
    await withScriptedModel(script, async (server) => {
      const response = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'scripted', messages: user('q') }),
      });
      assert.equal(response.status, 429);
      assert.equal(response.headers.get('retry-after'), '3');
      const body = (await response.json()) as { error: { message: string; code: number } };
      assert.deepEqual([body.error.message, body.error.code], ['slow down', 429]);
      assert.deepEqual(server.failures, [], 'a scripted error is not a failure');
    });
  });

  test('close() ends a hanging request', async () => {
    const server = await startScriptedModel({ script: { turns: [{ hang: true }] } });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: user('q') }),
    });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await server.close();
    await assert.rejects(pending);
  });

  test('an invalid script is refused with the field named', async () => {
    await assert.rejects(
      startScriptedModel({ script: { turns: [{ content: 'x', finish_reason: 'done' as never }] } }),
      (error: unknown) =>
        error instanceof InvalidInputError && /turns\[0\]\.finish_reason/.test(error.message),
    );
    await assert.rejects(
      startScriptedModel({ script: { turns: [] } }),
      (error: unknown) => error instanceof InvalidInputError && /turns/.test(error.message),
    );
  });
});
