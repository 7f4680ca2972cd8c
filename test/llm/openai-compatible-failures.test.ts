import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ModelError } from '../../src/llm/errors/model-error.ts';
import { ModelTimeoutError } from '../../src/llm/errors/model-timeout-error.ts';
import type { ModelRequest, ModelStreamPart } from '../../src/llm/model.ts';
import { OpenAICompatibleModel } from '../../src/llm/openai-compatible.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { chatRequests, collect, modelFor, withScriptedModel } from './helpers.ts';

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  ...extra,
});
const textOf = (parts: ModelStreamPart[]): string =>
  parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
const isAbortError = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

/** A fetch that answers with an SSE body which breaks (like a dropped connection) after `events`. */
function breakingFetch(events: object[], calls: { count: number }): typeof fetch {
  return async () => {
    calls.count += 1;
    const pending = [...events];
    const body = new ReadableStream<Uint8Array>({
      // One event per read, then the error: erroring at once would discard what was queued.
      pull(controller) {
        const event = pending.shift();
        if (event) controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(event)}\n\n`));
        else controller.error(new TypeError('terminated'));
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}
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
    const oldVllm: typeof fetch = async () =>
      new Response(
        JSON.stringify({
          object: 'error',
          message: 'stop_token_ids must be integers',
          type: 'BadRequestError',
          code: 400,
        }),
        { status: 400, headers: { 'content-type': 'application/json' } },
      );
    const model = new OpenAICompatibleModel({
      id: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
      upstreamModel: 'm',
      fetch: oldVllm,
    });
    await assert.rejects(model.complete(ask()), /stop_token_ids must be integers/);
  });

  test('a refused connection is retried, then named with the URL', async () => {
    const server = await startScriptedModel({ script: { turns: [{ content: 'x' }] } });
    await server.close();
    const calls = { count: 0 };
    const counting: typeof fetch = (input, init) => {
      calls.count += 1;
      return fetch(input, init);
    };
    const model = modelFor(server, { maxRetries: 1, fetch: counting });
    await assert.rejects(collect(model.stream(ask())), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.equal(error.upstreamStatus, undefined);
      assert.match(
        error.message,
        /cannot reach model "scripted" at http:\/\/127\.0\.0\.1:\d+\/v1 \(.*ECONNREFUSED/,
      );
      return true;
    });
    assert.equal(calls.count, 2);
  });

  test('a stream that breaks before any part is retried; after a part, it is not', async () => {
    const early = { count: 0 };
    const model = (fetch: typeof globalThis.fetch) =>
      new OpenAICompatibleModel({
        id: 'm',
        baseUrl: 'http://127.0.0.1:9/v1',
        upstreamModel: 'm',
        maxRetries: 1,
        retryBaseDelayMs: 1,
        fetch,
      });
    await assert.rejects(
      collect(model(breakingFetch([chunk({ role: 'assistant', content: '' })], early)).stream(ask())),
      ModelError,
    );
    assert.equal(early.count, 2, 'nothing had been yielded: retried');

    const late = { count: 0 };
    const parts: ModelStreamPart[] = [];
    await assert.rejects(async () => {
      for await (const part of model(breakingFetch([chunk({ content: 'hel' })], late)).stream(ask()))
        parts.push(part);
    }, ModelError);
    assert.equal(textOf(parts), 'hel');
    assert.equal(late.count, 1, 'a part had been yielded: not retried');
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
