import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, test } from 'node:test';
import { PreconnectingAgent } from '../../src/llm/preconnecting-agent.ts';
import { UpstreamHttp } from '../../src/llm/upstream-http.ts';
import { eventually } from '../helpers/eventually.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A model server that answers every POST with one event, and counts its connections. */
async function modelServer(): Promise<{
  url: string;
  port: number;
  connections: Socket[];
  requestsBySocket: Map<Socket, number>;
  close: () => Promise<void>;
}> {
  const connections: Socket[] = [];
  const requestsBySocket = new Map<Socket, number>();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requestsBySocket.set(request.socket, (requestsBySocket.get(request.socket) ?? 0) + 1);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('data: {"ok":true}\n\ndata: [DONE]\n\n');
    });
  });
  server.on('connection', (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    connections,
    requestsBySocket,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function post(http: UpstreamHttp): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of http.postStream('/chat/completions', '{}', new AbortController().signal))
    chunks.push(chunk);
  return chunks;
}

describe('PreconnectingAgent: a model connection dialled as a chat arrives', () => {
  test('preconnect opens the connection before the request, and the request goes out on it', async () => {
    const server = await modelServer();
    const http = new UpstreamHttp({ baseUrl: server.url });
    try {
      http.preconnect();
      await eventually(() => server.connections.length === 1, 'the server sees the connection', 2000, 5);
      assert.deepEqual(await post(http), [{ ok: true }]);
      assert.equal(server.connections.length, 1, 'no second connection');
      assert.equal(server.requestsBySocket.get(server.connections[0]!), 1, 'the request came on the spare');
    } finally {
      await server.close();
    }
  });

  test('a burst dials one connection per chat; kept-alive ones are used before any is dialled', async () => {
    const server = await modelServer();
    const http = new UpstreamHttp({ baseUrl: server.url });
    try {
      for (let i = 0; i < 5; i++) http.preconnect();
      await eventually(() => server.connections.length === 5, 'five connections', 2000, 5);
      assert.deepEqual(
        await Promise.all(Array.from({ length: 5 }, () => post(http))),
        Array(5).fill([{ ok: true }]),
      );
      assert.equal(server.connections.length, 5, 'each request took a spare: none dialled anew');
      // The five are kept alive and free now: three more chats dial nothing.
      await sleep(20);
      for (let i = 0; i < 3; i++) http.preconnect();
      await sleep(50);
      assert.equal(server.connections.length, 5);
      await Promise.all(Array.from({ length: 3 }, () => post(http)));
      assert.equal(server.connections.length, 5);
    } finally {
      await server.close();
    }
  });

  test('a spare nobody takes is closed after its time; the cap bounds how many wait', async () => {
    const server = await modelServer();
    const agent = new PreconnectingAgent({
      host: '127.0.0.1',
      port: server.port,
      spareTtlMs: 100,
      maxSpares: 3,
    });
    try {
      for (let i = 0; i < 10; i++) agent.preconnect();
      assert.equal(agent.spares, 3, 'at most maxSpares');
      await eventually(() => server.connections.length === 3, 'three connections', 2000, 5);
      await eventually(
        () => server.connections.every((socket) => socket.destroyed),
        'the spares are closed',
        2000,
      );
      assert.equal(agent.spares, 0);
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  test('a server that refuses makes no error of the spare; the request says why', async () => {
    const server = await modelServer();
    const { port } = server;
    await server.close(); // nothing listens on the port now
    const http = new UpstreamHttp({ baseUrl: `http://127.0.0.1:${port}/v1` });
    http.preconnect();
    await sleep(50);
    await assert.rejects(post(http), (error: Error) => /ECONNREFUSED/.test(error.message));
  });

  test('a spare the server closed is not handed to a request', async () => {
    const server = await modelServer();
    const agent = new PreconnectingAgent({ host: '127.0.0.1', port: server.port });
    const http = new UpstreamHttp({ baseUrl: server.url, agent });
    try {
      http.preconnect();
      await eventually(() => server.connections.length === 1, 'the spare is connected', 2000, 5);
      server.connections[0]!.destroy(); // the model server drops it (its idle timeout)
      await eventually(() => agent.spares === 0, 'the spare is dropped', 2000, 5);
      assert.deepEqual(await post(http), [{ ok: true }]);
      assert.equal(server.connections.length, 2, 'the request dialled anew');
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
