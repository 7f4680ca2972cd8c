import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { contentType } from '../workspace/content-type.ts';
import type { McpHost } from './host.ts';
import {
  DOCUMENT_TEMPLATE,
  DOCUMENTS,
  type DocumentName,
  decodePath,
  documentUri,
  FILE_TEMPLATE,
  fileUri,
} from './uris.ts';

/**
 * The largest file a resource read returns; bigger ones are downloaded from their URL. A
 * read is encoded and framed as one JSON message on the main thread, so what it serializes
 * must stay small whatever the file holds: at most 512 KiB of JSON (text escapes `"` and `\`
 * to two characters, a blob is base64, 4/3 of the bytes), a millisecond or so of work
 * (docs/performance.md). 256 KiB is also about 64,000 tokens, more than a model reads at once.
 */
export const MAX_RESOURCE_BYTES = 256 * 1024;

const DOCUMENT_TYPES: Record<DocumentName, string> = {
  'report.md': 'text/markdown',
  'report.html': 'text/html',
  'notebook.ipynb': 'application/x-ipynb+json',
};

/**
 * The session's thread as MCP resources: every workspace file (text as text, images and
 * other bytes as base64 blobs), and the thread's report and notebook, rendered from its
 * events when read. Only the session's own thread is readable.
 */
export function registerResources(server: McpServer, host: McpHost): void {
  server.registerResource(
    'workspace-file',
    new ResourceTemplate(FILE_TEMPLATE, {
      list: async () => {
        const thread = await host.currentThread();
        if (!thread) return { resources: [] };
        const files = await host.withWorkspace(thread, (workspace) => workspace.list({ limit: 1_000 }));
        return {
          resources: files.map((file) => ({
            uri: fileUri(thread.id, file.path),
            name: file.path,
            mimeType: mimeOf(file.path),
            size: file.bytes,
          })),
        };
      },
    }),
    { title: 'Workspace file', description: "A file of the thread's workspace" },
    async (uri, variables) => {
      const thread = await ownThread(host, variables.thread_id);
      const path = decodePath(String(variables.path ?? ''));
      if (!path) throw new InvalidInputError(`${uri.href} is not a valid file URI`);
      const bytes = await host.withWorkspace(thread, async (workspace) => {
        const file = await workspace.open(path);
        if (file.bytes > MAX_RESOURCE_BYTES) {
          await file.close();
          throw new InvalidInputError(
            `${path} is ${file.bytes} bytes, over the ${MAX_RESOURCE_BYTES}-byte limit of a resource read: download it from ${host.fileUrl(thread, path)}`,
          );
        }
        return file.read(MAX_RESOURCE_BYTES);
      });
      return contents(uri.href, mimeOf(path), bytes);
    },
  );

  server.registerResource(
    'thread-document',
    new ResourceTemplate(DOCUMENT_TEMPLATE, {
      list: async () => {
        const thread = await host.currentThread();
        if (!thread) return { resources: [] };
        return {
          resources: DOCUMENTS.map((name) => ({
            uri: documentUri(thread.id, name),
            name,
            mimeType: DOCUMENT_TYPES[name],
            description: name.startsWith('report')
              ? "The thread's report: the answer, charts and every step"
              : "The thread's Jupyter notebook (opens with the Analyst kernel on this thread)",
          })),
        };
      },
    }),
    { title: 'Report or notebook', description: "The thread's report (Markdown, HTML) or notebook" },
    async (uri, variables) => {
      const thread = await ownThread(host, variables.thread_id);
      const name = String(variables.document) as DocumentName;
      if (!DOCUMENTS.includes(name))
        throw new NotFoundError(`no document ${name}: use ${DOCUMENTS.join(', ')}`);
      const bytes = await host.document(thread, name);
      return { contents: [{ uri: uri.href, mimeType: DOCUMENT_TYPES[name], text: bytes.toString('utf8') }] };
    },
  );
}

async function ownThread(host: McpHost, id: unknown) {
  const thread = await host.currentThread();
  if (!thread || thread.id !== id) throw new NotFoundError(`no thread ${String(id)} in this MCP session`);
  return thread;
}

function mimeOf(path: string): string {
  return contentType(path).split(';')[0]!;
}

const TEXT_TYPES = /^(text\/|application\/(json|x-ipynb\+json|xml|javascript))/;

/**
 * Control characters other than tab and line ends: JSON writes each as six characters
 * (`\u0001`), so a "text" file of them would serialize to six times its size. Such a file
 * is not text: it goes as a blob.
 */
const CONTROL_BYTES = new Set([...Array(32).keys(), 127].filter((b) => b !== 9 && b !== 10 && b !== 13));

function hasControlBytes(bytes: Buffer): boolean {
  for (const byte of CONTROL_BYTES) if (bytes.includes(byte)) return true;
  return false;
}

/** Text files as text (when they are UTF-8 without control characters), everything else as a base64 blob. */
function contents(uri: string, mimeType: string, bytes: Buffer): ReadResourceResult {
  if ((TEXT_TYPES.test(mimeType) || mimeType === 'application/octet-stream') && !hasControlBytes(bytes)) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return {
        contents: [
          { uri, mimeType: mimeType === 'application/octet-stream' ? 'text/plain' : mimeType, text },
        ],
      };
    } catch {
      // not UTF-8: a blob after all
    }
  }
  return { contents: [{ uri, mimeType, blob: bytes.toString('base64') }] };
}
