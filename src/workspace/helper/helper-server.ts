import { chmod, chown, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { isAnalystError } from '../../errors/index.ts';
import type { WorkspaceStore } from '../workspace.ts';
import { type HelperAnswer, type HelperRequest, HelperRequestSchema, MAX_LINE_BYTES } from './protocol.ts';

export interface HelperServerOptions {
  /** The store that really makes the filesystems (the loop store; the helper runs as root). */
  store: WorkspaceStore;
  socketPath: string;
  /** The uid (and gid) of the one client, the app: the socket is given to it, mode 0600. */
  clientUid: number;
}

/**
 * Serves a WorkspaceStore over a unix socket to the unprivileged app (see protocol.ts).
 * The socket is the helper's only input: reachable by root and the app's uid alone, and it
 * takes only workspace ids, so the app can ask for nothing but workspaces.
 */
export async function serveWorkspaceHelper(
  options: HelperServerOptions,
): Promise<{ close(): Promise<void> }> {
  await rm(options.socketPath, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_LINE_BYTES && !buffer.includes('\n')) {
        socket.destroy();
        return;
      }
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        void answer(options.store, line).then((reply) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
        });
        newline = buffer.indexOf('\n');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, resolve);
  });
  await chown(options.socketPath, options.clientUid, options.clientUid);
  await chmod(options.socketPath, 0o600);
  return {
    async close() {
      // server.close() waits for every connection to end: end them first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await rm(options.socketPath, { force: true });
    },
  };
}

async function answer(store: WorkspaceStore, line: string): Promise<HelperAnswer> {
  let request: HelperRequest;
  try {
    const parsed = HelperRequestSchema.safeParse(JSON.parse(line));
    if (!parsed.success)
      return refused(-1, 'invalid_request', parsed.error.issues[0]?.message ?? 'bad request');
    request = parsed.data;
  } catch {
    return refused(-1, 'invalid_request', 'not JSON');
  }
  try {
    switch (request.op) {
      case 'ping':
        return { id: request.id, ok: true, kind: store.kind };
      case 'create': {
        // The app looks for the mount as soon as this answers: the filesystem must be there.
        const workspace = await store.create();
        await workspace.ready();
        return { id: request.id, ok: true, workspace: workspace.id };
      }
      case 'open':
        return { id: request.id, ok: true, workspace: (await store.open(request.workspace)).id };
      case 'destroy':
        await store.destroy(request.workspace);
        return { id: request.id, ok: true };
    }
  } catch (error) {
    return refused(
      request.id,
      isAnalystError(error) ? error.code : 'helper_failed',
      error instanceof Error ? error.message : String(error),
    );
  }
}

function refused(id: number, code: string, message: string): HelperAnswer {
  return { id, ok: false, error: { code, message } };
}
