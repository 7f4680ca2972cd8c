import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { addAcceptHandles } from '../../src/server/accept-handles.ts';

const listening = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/**
 * Opens `clients` connections while the event loop is blocked (the kernel completes them),
 * then counts how many the server accepted in the next poll phase (or two).
 */
async function acceptedInOneTurn(server: Server, port: number, clients: number): Promise<number> {
  let accepted = 0;
  server.on('connection', () => {
    accepted += 1;
  });
  const sockets: Socket[] = [];
  for (let i = 0; i < clients; i++) sockets.push(connect(port, '127.0.0.1').on('error', () => {}));
  const until = performance.now() + 100;
  while (performance.now() < until) {} // a busy turn: the handshakes finish in the kernel
  // The second check phase from here has one poll phase before it (two if this is a timer).
  const inOneTurn = await new Promise<number>((resolve) =>
    setImmediate(() => setImmediate(() => resolve(accepted))),
  );
  for (const socket of sockets) socket.destroy();
  return inOneTurn;
}

describe('accept handles: copies of the listening socket', () => {
  test('a burst that waited while the loop was busy is accepted in one turn, not one a turn', async () => {
    const server = createServer((socket) => socket.on('error', () => {}));
    const port = await listening(server);
    const close = await addAcceptHandles(server, { count: 16 });
    try {
      const accepted = await acceptedInOneTurn(server, port, 20);
      assert.ok(accepted >= 12, `accepted ${accepted} of 20 in one turn`);
    } finally {
      close();
      server.close();
    }
  });

  test('an HTTP server behind the copies answers every request; closing ends them all', async () => {
    const server = createHttpServer((_req, res) => res.end('ok'));
    const port = await listening(server);
    const close = await addAcceptHandles(server, { count: 4 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`http://127.0.0.1:${port}/`).then((r) => r.text())),
    );
    assert.deepEqual(new Set(answers), new Set(['ok']));
    close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`), /fetch failed/);
  });

  test('one handle wanted, or a server not listening: nothing is added', async () => {
    const server = createServer();
    const close = await addAcceptHandles(server);
    close();
    const port = await listening(server);
    const closeOne = await addAcceptHandles(server, { count: 1 });
    closeOne();
    assert.ok(port > 0);
    server.close();
  });
});
