/**
 * The URIs of the MCP server's resources: a thread's workspace files and its documents.
 * `analyst://threads/{thread_id}/files/{path}` (each path segment percent-encoded) and
 * `analyst://threads/{thread_id}/report.md`, `…/report.html`, `…/notebook.ipynb`.
 */

export const FILE_TEMPLATE = 'analyst://threads/{thread_id}/files/{+path}';
export const DOCUMENT_TEMPLATE = 'analyst://threads/{thread_id}/{document}';
export const DOCUMENTS = ['report.md', 'report.html', 'notebook.ipynb'] as const;
export type DocumentName = (typeof DOCUMENTS)[number];

export function fileUri(threadId: string, path: string): string {
  return `analyst://threads/${threadId}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export function documentUri(threadId: string, document: DocumentName): string {
  return `analyst://threads/${threadId}/${document}`;
}

/** A matched `{+path}` back to the workspace path (undefined when it is not valid percent-encoding). */
export function decodePath(encoded: string): string | undefined {
  try {
    return encoded.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}
