import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Relays an MCP client on one transport (stdio) to Analyst's `/mcp` on a running server,
 * so that `analyst mcp --url … --thread …` serves the very tools of the server, on its
 * thread, with its key and its owner isolation. Resolves when either side closes.
 */
export async function relayToServer(options: {
  client: Transport;
  url: URL;
  apiKey: string | undefined;
  onError?: (error: Error) => void;
}): Promise<void> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const upstream = new StreamableHTTPClientTransport(options.url, { requestInit: { headers } });
  const { client } = options;
  const pending = new Map<string | number, string>();
  let finished!: () => void;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  let closed = false;
  const closeBoth = () => {
    if (closed) return;
    closed = true;
    void upstream.close().catch(() => {});
    void client.close().catch(() => {});
    finished();
  };

  client.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) pending.set(message.id, message.method);
    upstream.send(message).catch((error: Error) => {
      options.onError?.(error);
      // A request that could not be delivered still gets its answer: an error saying why.
      if ('method' in message && 'id' in message) {
        pending.delete(message.id);
        void client.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32000, message: `the Analyst server did not take the request: ${error.message}` },
        });
      }
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && ('result' in message || 'error' in message)) {
      const method = pending.get(message.id as string | number);
      pending.delete(message.id as string | number);
      // Later requests carry the negotiated version, as the SDK's own client sends it.
      if (method === 'initialize' && 'result' in message) {
        const version = (message.result as { protocolVersion?: string }).protocolVersion;
        if (version) upstream.setProtocolVersion(version);
      }
    }
    void client.send(message).catch((error: Error) => options.onError?.(error));
  };
  upstream.onerror = (error) => options.onError?.(error);
  client.onerror = (error) => options.onError?.(error);
  upstream.onclose = closeBoth;
  client.onclose = async () => {
    if (!closed) await upstream.terminateSession().catch(() => {});
    closeBoth();
  };
  await upstream.start();
  await client.start();
  return done;
}
