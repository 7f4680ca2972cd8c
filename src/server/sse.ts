import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Server-sent events on a raw response, as OpenAI streams them (`data: {json}\n\n`, then
 * `data: [DONE]`). Honours backpressure; a failed write or a closed connection counts as the
 * client going away (`closed`, and `onClose` fires once) — never a silent loss.
 */
export class SseStream {
  private closedByPeer = false;
  private corked = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly response: ServerResponse,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    // The headers leave with the first event when it comes in this turn (a chat's role chunk
    // does): one write instead of two per stream; at the turn's end they leave regardless.
    this.holdForTurn();
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    const onClose = () => {
      if (!response.writableFinished) this.markClosed();
    };
    response.on('close', onClose);
    response.on('error', () => this.markClosed());
  }

  get closed(): boolean {
    return this.closedByPeer;
  }

  onClose(listener: () => void): void {
    if (this.closedByPeer) listener();
    else this.closeListeners.push(listener);
  }

  /** Sends one event; resolves when the socket can take more. */
  async send(data: unknown): Promise<void> {
    await this.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  /** Sends one event with an `id:` line (what `Last-Event-ID` resumes after). */
  async sendWithId(id: number | string, data: unknown): Promise<void> {
    await this.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line (`: text`), e.g. a heartbeat that keeps proxies from closing an idle stream. */
  async comment(text: string): Promise<void> {
    await this.write(`: ${text}\n\n`);
  }

  /** Ends the stream without OpenAI's `[DONE]` marker. */
  end(): void {
    if (!this.closedByPeer) this.response.end();
  }

  async done(): Promise<void> {
    await this.write('data: [DONE]\n\n');
    if (!this.closedByPeer) this.response.end();
  }

  private write(text: string): Promise<void> {
    if (this.closedByPeer) return Promise.resolve();
    this.holdForTurn();
    return new Promise((resolve) => {
      let ok: boolean;
      try {
        ok = this.response.write(text, (error) => {
          if (error) this.markClosed();
        });
      } catch {
        this.markClosed();
        resolve();
        return;
      }
      if (ok) resolve();
      else {
        const settle = () => {
          this.response.off('drain', settle);
          this.response.off('close', settle);
          resolve();
        };
        this.response.once('drain', settle);
        this.response.once('close', settle);
      }
    });
  }

  /**
   * What is written in this turn of the event loop leaves in one write (a fast model sends
   * several events per network read); the turn's end uncorks, so nothing waits longer.
   */
  private holdForTurn(): void {
    if (this.corked) return;
    this.corked = true;
    this.response.cork();
    setImmediate(() => {
      this.corked = false;
      this.response.uncork();
    });
  }

  private markClosed(): void {
    if (this.closedByPeer) return;
    this.closedByPeer = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** CORS headers @fastify/cors set on the reply, carried over to the hijacked SSE response. */
export function corsHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (name.startsWith('access-control-') && value !== undefined) headers[name] = String(value);
  }
  return headers;
}
