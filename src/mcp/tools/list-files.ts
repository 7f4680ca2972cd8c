import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { contentType } from '../../workspace/content-type.ts';
import type { McpHost } from '../host.ts';
import { fileUri } from '../uris.ts';

export const ListFilesOutputSchema = z.object({
  thread_id: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      kind: z.enum(['file', 'directory']),
      bytes: z.number().int().nonnegative(),
      mime: z.string().optional(),
      modified_at: z.number().int(),
      uri: z.string().optional().describe('The MCP resource of a file'),
    }),
  ),
  connections: z
    .array(z.object({ id: z.string(), kind: z.string(), title: z.string() }))
    .describe('Database connections query can run on (its `connection` argument)'),
});

/** `list_files`: the workspace's files and folders with their sizes and kinds. */
export function registerListFiles(server: McpServer, host: McpHost): void {
  server.registerTool(
    'list_files',
    {
      title: 'List workspace files',
      description:
        "List the files and folders of the thread's workspace (the data files query reads, and what analyses made), with sizes in bytes and kinds. Each file is also an MCP resource.",
      outputSchema: ListFilesOutputSchema,
      annotations: { readOnlyHint: true },
    },
    async () => {
      const thread = await host.thread();
      const entries = await host.withWorkspace(thread, (workspace) => workspace.list({ directories: true }));
      const files = entries.map((entry) => ({
        path: entry.path,
        kind: entry.kind,
        bytes: entry.bytes,
        ...(entry.kind === 'file'
          ? { mime: contentType(entry.path).split(';')[0]!, uri: fileUri(thread.id, entry.path) }
          : {}),
        modified_at: Math.floor(entry.modifiedAt.getTime() / 1000),
      }));
      const lines = files.map((f) =>
        f.kind === 'directory' ? `${f.path}/ (folder)` : `${f.path} (${f.bytes} bytes, ${f.mime})`,
      );
      const connections = (host.connections?.list ?? []).map((c) => ({
        id: c.id,
        kind: c.kind,
        title: c.title,
      }));
      const listed = files.length
        ? `${files.filter((f) => f.kind === 'file').length} file(s) in the workspace:\n${lines.join('\n')}`
        : 'The workspace is empty.';
      const databases = connections.length
        ? `\nDatabase connections (query with "connection"): ${connections.map((c) => `${c.id} (${c.kind}, ${c.title})`).join(', ')}`
        : '';
      const text = listed + databases;
      return {
        content: [{ type: 'text', text }],
        structuredContent: { thread_id: thread.id, files, connections },
      };
    },
  );
}
