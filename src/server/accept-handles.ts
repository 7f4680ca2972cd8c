import { spawn } from 'node:child_process';
import { Server } from 'node:net';

/** Handles on the listening socket in all: up to this many connections are accepted per turn. */
export const ACCEPT_HANDLES = 16;

/** How long the short-lived copier may take before the server goes on with one handle. */
const COPY_TIMEOUT_MS = 10_000;

// The copier: it hands each handle it gets straight back (the transfer makes a new file
// descriptor for the same socket), never listens on it itself, and ends after the last.
const ECHO = `process.on('message', (m, h) => process.send(m, h, () => { h.close(); if (m === 'last') process.disconnect(); }));`;

/**
 * More handles on the server's listening socket, so a burst of new connections is accepted
 * at once however busy the event loop is. Node 20's libuv (≥ 1.45) accepts one connection
 * per handle per turn of the loop; with many chats streaming, turns are long, so a burst of
 * new clients waited in the kernel's accept queue for up to a second before the server even
 * saw them (docs/performance.md#accept-handles). Node 20 has neither SO_REUSEPORT for net nor
 * dup(2); a handle sent over an IPC channel arrives as a new descriptor, so a child copies
 * the handle `count - 1` times and exits (once, at start). Each copy feeds the same `server` (its
 * 'connection' event, so connection tracking, timeouts and close work as for the first).
 * Where no child can be started, the server keeps its one handle and says why through
 * `onError`. Returns the function that closes the copies.
 */
export async function addAcceptHandles(
  server: Server,
  options: { count?: number; onError?: (error: unknown) => void } = {},
): Promise<() => void> {
  const count = options.count ?? ACCEPT_HANDLES;
  const handle = (server as unknown as { _handle?: object })._handle;
  const copies: Server[] = [];
  const close = () => {
    for (const copy of copies.splice(0)) copy.close();
  };
  if (count <= 1 || !handle) return close;
  const child = spawn(process.execPath, ['-e', ECHO], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: {},
  });
  let waiting: { resolve: (copy: object) => void; reject: (error: Error) => void } | undefined;
  const fail = (error: Error) => waiting?.reject(error);
  child.on('message', (_message, copy) =>
    copy ? waiting?.resolve(copy as object) : fail(new Error('no handle came back')),
  );
  child.on('error', fail);
  child.on('exit', () => fail(new Error('the handle copier ended early')));
  const timer = setTimeout(() => child.kill('SIGKILL'), COPY_TIMEOUT_MS);
  try {
    for (let i = 1; i < count; i++) {
      const copied = await new Promise<object>((resolve, reject) => {
        waiting = { resolve, reject };
        child.send(i === count - 1 ? 'last' : 'next', handle as never);
      });
      const copy = new Server();
      copy.on('connection', (socket) => server.emit('connection', socket));
      copy.on('error', (error) => options.onError?.(error));
      copy.listen(copied);
      copies.push(copy);
    }
  } catch (error) {
    options.onError?.(
      new Error(
        `accepting with ${copies.length + 1} handles (${error instanceof Error ? error.message : String(error)})`,
      ),
    );
  } finally {
    waiting = undefined;
    clearTimeout(timer);
    child.removeAllListeners();
    child.on('error', () => {}); // it is done with either way
    if (child.exitCode === null) child.kill();
  }
  server.once('close', close);
  return close;
}
