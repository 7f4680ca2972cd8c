import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ScriptInput } from '../../src/llm/scripted/script.ts';

export const KEY_A = 'mcp-test-key-aaaaaaaaaaaa';
export const KEY_B = 'mcp-test-key-bbbbbbbbbbbb';

export const SALES_CSV = 'region,amount\nnorth,10\nsouth,20\nnorth,5\neast,25\n';

/** A DeepAnalyze-style script: one cell that sums the file and draws a chart, then the answer. */
export const ANALYSIS_SCRIPT: ScriptInput = {
  mode: 'match',
  turns: [
    {
      when: { last_role: 'execute' },
      content: '<Answer>The amounts add up to 60; north sells 15.</Answer>',
    },
    {
      content:
        '<Analyze>I will add up the amounts and chart them by region.</Analyze>\n<Code>\nimport pandas as pd\nimport matplotlib.pyplot as plt\ndf = pd.read_csv("sales.csv")\nprint("total", df.amount.sum())\ndf.groupby("region").amount.sum().plot.bar()\n</Code>',
    },
  ],
};

/** The SDK's own client over Streamable HTTP, on `/mcp` of a server. */
export async function httpClient(
  url: string,
  options: { key?: string; threadId?: string } = {},
): Promise<Client> {
  const endpoint = new URL('/mcp', url);
  if (options.threadId) endpoint.searchParams.set('thread_id', options.threadId);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: options.key ? { authorization: `Bearer ${options.key}` } : {} },
  });
  const client = new Client({ name: 'analyst-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The SDK's own client over stdio, talking to `analyst mcp ARGS…` as a child process. */
export async function stdioClient(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/analyst.js', 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'analyst-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The text of a tool result's text parts. */
export function textOf(result: CallToolResult): string {
  return result.content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { onprogress?: (progress: { progress: number; message?: string }) => void } = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    onprogress: options.onprogress,
    resetTimeoutOnProgress: true,
  })) as CallToolResult;
}

/** An MCP session over plain fetch: requests return their raw bodies (JSON or one SSE event). */
export async function rawMcpSession(url: string, key: string, threadId: string) {
  const endpoint = `${url}/mcp?thread_id=${threadId}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = async (body: unknown): Promise<{ bytes: Buffer; session: string | null }> => {
    const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.ok(response.status < 300, `${response.status} ${bytes.toString().slice(0, 300)}`);
    return { bytes, session: response.headers.get('mcp-session-id') };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  assert.ok(init.session, 'a session id');
  headers['mcp-session-id'] = init.session;
  headers['mcp-protocol-version'] = '2025-03-26';
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    /** The session's endpoint and headers, for requests sent from elsewhere (a load thread). */
    endpoint,
    headers,
    request: async (id: number, method: string, params: unknown): Promise<Buffer> =>
      (await post({ jsonrpc: '2.0', id, method, params })).bytes,
    parse(body: Buffer): unknown {
      const text = body.toString();
      const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
      return JSON.parse(data ?? 'null');
    },
  };
}
