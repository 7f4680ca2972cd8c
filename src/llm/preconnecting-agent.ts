import { Agent, type ClientRequestArgs } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface PreconnectingAgentOptions {
  /** The model server (plain HTTP). */
  host: string;
  port: number;
  /** How long a connection dialled ahead waits for its request before it is closed. Default 5000. */
  spareTtlMs?: number;
  /** Connections dialled ahead and not yet used, at most. Default 256. */
  maxSpares?: number;
}

/**
 * A keep-alive agent for one plain-HTTP model server that can dial ahead. `preconnect()`, as a
 * chat arrives, opens the connection its model request will need, so the TCP handshake — and,
 * under a burst of new chats, the busy event-loop turn in which Node sees it complete and only
 * then writes the request — overlaps the chat's set-up instead of following it
 * (docs/performance.md#preconnect); across a WAN the handshake is longer still (an https model server is not dialled ahead). A request that finds a
 * kept-alive connection free uses it as ever, and one is dialled ahead only when the free
 * ones will not go round; a spare nobody takes is closed after `spareTtlMs`.
 */
export class PreconnectingAgent extends Agent {
  readonly #target: { host: string; port: number };
  /** Each spare, and what hands it over to a request. */
  readonly #spares = new Map<Socket, () => void>();
  readonly #spareTtlMs: number;
  readonly #maxSpares: number;

  constructor(options: PreconnectingAgentOptions) {
    super({ keepAlive: true });
    this.#target = { host: options.host, port: options.port };
    this.#spareTtlMs = options.spareTtlMs ?? 5_000;
    this.#maxSpares = options.maxSpares ?? 256;
  }

  /** Connections dialled ahead and not taken yet. */
  get spares(): number {
    return this.#spares.size;
  }

  /** Dials a connection for a request to come, unless a free or spare one is there for it. */
  preconnect(): void {
    let free = 0;
    for (const sockets of Object.values(this.freeSockets)) free += sockets?.length ?? 0;
    if (free > this.#spares.size || this.#spares.size >= this.#maxSpares) return;
    const socket = connect({ ...this.#target, noDelay: true, keepAlive: true });
    const drop = () => {
      clearTimeout(timer);
      socket.off('error', drop);
      socket.off('close', drop);
      this.#spares.delete(socket);
      socket.destroy();
    };
    // Not ours to report: the request that would have used it connects anew and says why.
    socket.on('error', drop);
    socket.on('close', drop);
    const timer = setTimeout(drop, this.#spareTtlMs).unref();
    socket.unref(); // a spare never keeps the process alive
    // Handed over, the request's own listeners take over from these.
    this.#spares.set(socket, () => {
      clearTimeout(timer);
      socket.off('error', drop);
      socket.off('close', drop);
      socket.ref();
      this.#spares.delete(socket);
    });
  }

  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    for (const [spare, takeOver] of this.#spares) {
      takeOver();
      if (!spare.destroyed) return spare;
    }
    return super.createConnection(options, callback);
  }

  override destroy(): void {
    for (const spare of this.#spares.keys()) spare.destroy();
    this.#spares.clear();
    super.destroy();
  }
}
