import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ModelError } from '../../src/llm/errors/model-error.ts';
import { ModelTimeoutError } from '../../src/llm/errors/model-timeout-error.ts';
import type { ModelRequest, ModelStreamPart } from '../../src/llm/model.ts';
import { OpenAICompatibleModel } from '../../src/llm/openai-compatible.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import {
  CountingAgent,
  chatRequests,
  collect,
  modelFor,
  withRawServer,
  withScriptedModel,
} from './helpers.ts';

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  ...extra,
});
const textOf = (parts: ModelStreamPart[]): string =>
  parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
const isAbortError = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

const chunk = (delta: object) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: null }],
});

describe('OpenAICompatibleModel retries', () => {
  test('a 500 is retried and the second answer streams', async () => {
    await withScriptedModel(
      { turns: [{ status: 500, error: 'engine hiccup' }, { content: 'recovered' }] },
      async (server) => {
        const parts = await collect(modelFor(server).stream(ask()));
        assert.equal(textOf(parts), 'recovered');
        assert.equal(chatRequests(server).length, 2);
      },
    );
  });

  test('a 429 is retried after its Retry-After, not the (long) backoff', async () => {
    const script = {
      turns: [{ status: 429, error: 'busy', headers: { 'retry-after': '0' } }, { content: 'ok' }],
    };
    await withScriptedModel(script, async (server) => {
      const started = Date.now();
      const response = await modelFor(server, { retryBaseDelayMs: 20_000 }).complete(ask());
      assert.equal(response.text, 'ok');
      assert.equal(chatRequests(server).length, 2);
      assert.ok(Date.now() - started < 5_000, 'waited for the backoff instead of Retry-After');
    });
  });

  test('retries stop at maxRetries with the status and attempts in the error', async () => {
    const turn = { status: 503, error: 'overloaded' };
    await withScriptedModel({ turns: [turn, turn, turn, { content: 'too late' }] }, async (server) => {
      await assert.rejects(collect(modelFor(server, { maxRetries: 2 }).stream(ask())), (error: unknown) => {
        assert.ok(error instanceof ModelError);
        assert.equal(error.upstreamStatus, 503);
        assert.match(error.message, /answered 503: "overloaded" after 3 attempts/);
        return true;
      });
      assert.equal(chatRequests(server).length, 3);
    });
  });

  test('a 400 is not retried and says what the upstream said, where', async () => {
    const script = {
      turns: [{ status: 400, error: "This model's maximum context length is 8192 tokens" }, { content: 'x' }],
    };
    await withScriptedModel(script, async (server) => {
      await assert.rejects(collect(modelFor(server).stream(ask())), (error: unknown) => {
        assert.ok(error instanceof ModelError && !(error instanceof ModelTimeoutError));
        assert.equal(error.upstreamStatus, 400);
        assert.ok(error.message.includes('maximum context length is 8192 tokens'), error.message);
        assert.ok(error.message.includes(server.url), 'names the base URL');
        assert.ok(error.message.includes('"scripted"'), 'names the model');
        return true;
      });
      assert.equal(chatRequests(server).length, 1);
    });
  });

  test('a 401 points at the API key and never repeats it', async () => {
    const secret = 'sk-test-4f9a8b7c6d5e';
    const script = { turns: [{ status: 401, error: `Incorrect API key provided: ${secret}` }] };
    await withScriptedModel(script, async (server) => {
      await assert.rejects(modelFor(server, { apiKey: secret }).complete(ask()), (error: unknown) => {
        assert.ok(error instanceof ModelError);
        assert.equal(error.upstreamStatus, 401);
        assert.match(error.message, /API key/);
        assert.ok(!error.message.includes(secret));
        return true;
      });
    });
  });

  test("an error body in vLLM's older top-level shape keeps its message", async () => {
    const oldVllm = {
      object: 'error',
      message: 'stop_token_ids must be integers',
      type: 'BadRequestError',
      code: 400,
    };
    await withRawServer(
      (_request, response) =>
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(oldVllm)),
      async (baseUrl) => {
        const model = new OpenAICompatibleModel({ id: 'm', baseUrl, upstreamModel: 'm' });
        await assert.rejects(model.complete(ask()), /answered 400: "stop_token_ids must be integers"/);
        await assert.rejects(collect(model.stream(ask())), /answered 400: "stop_token_ids must be integers"/);
      },
    );
  });

  test('an error body that is text, or empty, is said as it is', async () => {
    const bodies = ['upstream proxy: model offline', ''];
    await withRawServer(
      (_request, response) => response.writeHead(502).end(bodies.shift()),
      async (baseUrl) => {
        const model = new OpenAICompatibleModel({ id: 'm', baseUrl, upstreamModel: 'm', maxRetries: 0 });
        await assert.rejects(
          model.complete(ask()),
          /answered 502: "upstream proxy: model offline"; the model server failed/,
        );
        await assert.rejects(model.complete(ask()), /answered 502: "HTTP 502 with no body"/);
      },
    );
  });

  test('a refused connection is retried, then named with the URL', async () => {
    const server = await startScriptedModel({ script: { turns: [{ content: 'x' }] } });
    await server.close();
    const agent = new CountingAgent();
    const model = modelFor(server, { maxRetries: 1, agent });
    await assert.rejects(collect(model.stream(ask())), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.equal(error.upstreamStatus, undefined);
      assert.match(
        error.message,
        /cannot reach model "scripted" at http:\/\/127\.0\.0\.1:\d+\/v1 \(.*ECONNREFUSED.*\) after 2 attempts/,
      );
      return true;
    });
    assert.equal(agent.connections, 2);
  });

  test('a stream that breaks before any part is retried; after a part, it is not', async () => {
    // The server writes these events, then drops the connection mid-answer.
    const answers = [[chunk({ role: 'assistant', content: '' })], [chunk({ content: 'hel' })]];
    const requests: number[] = [];
    await withRawServer(
      (_request, response) => {
        const events = answers[Math.min(requests.length, 1)]!;
        requests.push(events.length);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
        setTimeout(() => response.socket?.destroy(), 20);
      },
      async (baseUrl) => {
        const model = new OpenAICompatibleModel({
          id: 'm',
          baseUrl,
          upstreamModel: 'm',
          maxRetries: 1,
          retryBaseDelayMs: 1,
        });
        const parts: ModelStreamPart[] = [];
        await assert.rejects(async () => {
          for await (const part of model.stream(ask())) parts.push(part);
        }, /broke mid-answer/);
        // The first attempt broke before any text (retried); the second after "hel" (not retried).
        assert.equal(requests.length, 2);
        assert.equal(textOf(parts), 'hel');
      },
    );
  });
});

describe('OpenAICompatibleModel timeouts and aborts', () => {
  test('a hanging upstream throws ModelTimeoutError within firstByteTimeoutMs, without retrying', async () => {
    await withScriptedModel({ turns: [{ hang: true }, { content: 'x' }] }, async (server) => {
      const started = Date.now();
      await assert.rejects(
        collect(modelFor(server, { firstByteTimeoutMs: 150 }).stream(ask())),
        (error: unknown) => {
          assert.ok(error instanceof ModelTimeoutError);
          assert.ok(error.message.includes(server.url) && error.message.includes('150 ms'), error.message);
          assert.match(error.message, /firstByteTimeoutMs/);
          return true;
        },
      );
      assert.ok(Date.now() - started < 2_000);
      assert.equal(chatRequests(server).length, 1);
    });
  });

  test('complete() times out on a slow answer too', async () => {
    await withScriptedModel({ turns: [{ content: 'late', delay_ms: 3_000 }] }, async (server) => {
      const started = Date.now();
      await assert.rejects(modelFor(server, { firstByteTimeoutMs: 150 }).complete(ask()), ModelTimeoutError);
      assert.ok(Date.now() - started < 2_000);
    });
  });

  test('silence mid-stream throws ModelTimeoutError after idleTimeoutMs', async () => {
    await withScriptedModel(
      { turns: [{ content: 'abcdefghij', chunk_chars: 2, chunk_delay_ms: 3_000 }] },
      async (server) => {
        const parts: ModelStreamPart[] = [];
        const started = Date.now();
        await assert.rejects(async () => {
          for await (const part of modelFor(server, { idleTimeoutMs: 150 }).stream(ask())) parts.push(part);
        }, /idleTimeoutMs/);
        assert.ok(Date.now() - started < 2_000);
        assert.ok(!parts.some((p) => p.type === 'finish'), 'a timed-out stream has no finish');
      },
    );
  });

  test('aborting mid-stream ends it promptly with an AbortError', async () => {
    await withScriptedModel(
      { turns: [{ content: 'x'.repeat(100), chunk_chars: 1, chunk_delay_ms: 50 }] },
      async (server) => {
        const controller = new AbortController();
        const parts: ModelStreamPart[] = [];
        let abortedAt = 0;
        await assert.rejects(async () => {
          for await (const part of modelFor(server).stream(ask({ abortSignal: controller.signal }))) {
            parts.push(part);
            if (parts.length === 2) {
              abortedAt = Date.now();
              controller.abort();
            }
          }
        }, isAbortError);
        assert.ok(Date.now() - abortedAt < 500, 'ended promptly');
        assert.equal(parts.length, 2);
      },
    );
  });

  test('aborting while waiting for the first byte, or during a retry backoff, ends promptly', async () => {
    const script = { turns: [{ hang: true }, { status: 500 }, { content: 'x' }] };
    await withScriptedModel(script, async (server) => {
      const model = modelFor(server, { retryBaseDelayMs: 30_000 });
      for (const waitMs of [100, 100]) {
        const started = Date.now();
        await assert.rejects(model.complete(ask({ abortSignal: AbortSignal.timeout(waitMs) })), isAbortError);
        assert.ok(Date.now() - started < 1_500);
      }
      assert.equal(chatRequests(server).length, 2, 'the backoff after the 500 was cut short');
    });
  });

  test('an already aborted signal sends nothing', async () => {
    await withScriptedModel({ turns: [{ content: 'x' }] }, async (server) => {
      const signal = AbortSignal.abort();
      await assert.rejects(collect(modelFor(server).stream(ask({ abortSignal: signal }))), isAbortError);
      await assert.rejects(modelFor(server).complete(ask({ abortSignal: signal })), isAbortError);
      assert.equal(chatRequests(server).length, 0);
    });
  });
});
