import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UpstreamHttpError } from '../../src/llm/errors/upstream-http-error.ts';
import { UpstreamHttp } from '../../src/llm/upstream-http.ts';
import { collect, withRawServer } from './helpers.ts';

/** Streams `raw` to the client in pieces of `pieceBytes` bytes, each in its own write. */
function streaming(raw: string | Buffer, pieceBytes: number) {
  return (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    let offset = 0;
    const next = () => {
      if (offset >= bytes.length) {
        response.end();
        return;
      }
      response.write(bytes.subarray(offset, offset + pieceBytes));
      offset += pieceBytes;
      setImmediate(next);
    };
    next();
  };
}

const stream = (baseUrl: string) =>
  collect(new UpstreamHttp({ baseUrl }).postStream('/chat/completions', '{}', new AbortController().signal));

describe('UpstreamHttp: the event stream as vLLM and others send it', () => {
  test('data lines become parsed chunks, whatever the network splits: mid-line, mid-character, CRLF', async () => {
    const raw =
      'data: {"text":"héllo 你好"}\r\n\r\n' +
      ': a comment line\n\n' +
      'data: {"text":\ndata: "two lines"}\n\n' +
      'data:{"text":"no space"}\n\n' +
      'data: [DONE]\n\n' +
      'data: {"text":"after DONE is not read"}\n\n';
    for (const pieceBytes of [1, 3, 7, 1000]) {
      const chunks = await withRawServer(streaming(raw, pieceBytes), stream);
      assert.deepEqual(
        chunks,
        [{ text: 'héllo 你好' }, { text: 'two lines' }, { text: 'no space' }],
        `pieces of ${pieceBytes} bytes`,
      );
    }
  });

  test('a last event without its blank line is kept', async () => {
    const chunks = await withRawServer(streaming('data: {"a":1}\n\ndata: {"a":2}\n', 5), stream);
    assert.deepEqual(chunks, [{ a: 1 }, { a: 2 }]);
  });

  test('an error inside the stream (a data error field, or event: error) is a stream failure with its body', async () => {
    for (const raw of [
      'data: {"a":1}\n\ndata: {"error":{"message":"CUDA out of memory"}}\n\n',
      'data: {"a":1}\n\nevent: error\ndata: {"message":"CUDA out of memory"}\n\n',
    ]) {
      await withRawServer(streaming(raw, 64), async (baseUrl) => {
        const seen: unknown[] = [];
        await assert.rejects(
          async () => {
            for await (const chunk of new UpstreamHttp({ baseUrl }).postStream(
              '/chat/completions',
              '{}',
              new AbortController().signal,
            ))
              seen.push(chunk);
          },
          (error: unknown) =>
            error instanceof UpstreamHttpError &&
            error.failure === 'stream' &&
            (error.body as { message: string }).message === 'CUDA out of memory',
        );
        assert.deepEqual(seen, [{ a: 1 }]);
      });
    }
  });

  test('a chunk that is not JSON is a SyntaxError (described as such above)', async () => {
    await withRawServer(streaming('data: {"a":\n\n', 64), async (baseUrl) => {
      await assert.rejects(stream(baseUrl), SyntaxError);
    });
  });

  test('an error status carries its status, parsed body and headers', async () => {
    await withRawServer(
      (_request, response) =>
        response
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' })
          .end('{"error":{"message":"slow down"}}'),
      async (baseUrl) => {
        await assert.rejects(stream(baseUrl), (error: unknown) => {
          assert.ok(error instanceof UpstreamHttpError);
          assert.equal(error.failure, 'status');
          assert.equal(error.status, 429);
          assert.deepEqual(error.body, { error: { message: 'slow down' } });
          assert.equal(error.headers['retry-after'], '3');
          return true;
        });
      },
    );
  });

  test('the request: POST to the base URL path, JSON, the key as a bearer token; a keyless server gets a placeholder', async () => {
    const seen: Array<{
      method?: string;
      url?: string;
      type?: string;
      authorization?: string;
      body: string;
    }> = [];
    await withRawServer(
      async (request, response) => {
        let body = '';
        for await (const part of request) body += part;
        seen.push({
          method: request.method,
          url: request.url,
          type: request.headers['content-type'],
          authorization: request.headers.authorization,
          body,
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      },
      async (baseUrl) => {
        const signal = new AbortController().signal;
        assert.deepEqual(
          await new UpstreamHttp({ baseUrl: `${baseUrl}/`, apiKey: 'sk-1' }).postJson(
            '/chat/completions',
            '{"x":1}',
            signal,
          ),
          { ok: true },
        );
        await new UpstreamHttp({ baseUrl }).postJson('/chat/completions', '{}', signal);
      },
    );
    assert.deepEqual(seen[0], {
      method: 'POST',
      url: '/v1/chat/completions',
      type: 'application/json',
      authorization: 'Bearer sk-1',
      body: '{"x":1}',
    });
    assert.equal(seen[1]?.authorization, 'Bearer EMPTY');
  });

  test('connections are kept alive and reused between requests', async () => {
    const sockets = new Set<unknown>();
    await withRawServer(
      (request, response) => {
        sockets.add(request.socket);
        response
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end('data: {"a":1}\n\ndata: [DONE]\n\n');
      },
      async (baseUrl) => {
        const http = new UpstreamHttp({ baseUrl });
        for (let i = 0; i < 5; i++)
          assert.deepEqual(
            await collect(http.postStream('/chat/completions', '{}', new AbortController().signal)),
            [{ a: 1 }],
          );
      },
    );
    assert.equal(sockets.size, 1);
  });

  test('aborting mid-stream ends the iteration with an AbortError and closes the connection', async () => {
    let closed: Promise<void> | undefined;
    await withRawServer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => response.write('data: {"a":1}\n\n'), 5);
        closed = new Promise((resolve) =>
          response.on('close', () => {
            clearInterval(timer);
            resolve();
          }),
        );
      },
      async (baseUrl) => {
        const controller = new AbortController();
        let seen = 0;
        await assert.rejects(async () => {
          for await (const _ of new UpstreamHttp({ baseUrl }).postStream(
            '/chat/completions',
            '{}',
            controller.signal,
          ))
            if (++seen === 3) controller.abort();
        }, /abort/i);
        assert.equal(seen, 3);
        await closed;
      },
    );
  });
});
