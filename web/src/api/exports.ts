/** What the studio's export menu offers. */
export type ExportKind = 'md' | 'html' | 'pdf' | 'ipynb' | 'zip';

export const EXPORT_KINDS: readonly ExportKind[] = ['md', 'html', 'pdf', 'ipynb', 'zip'];

/** Where a thread's export is read and the file name to save it under when the server names none. */
export function exportTarget(threadId: string, kind: ExportKind): { path: string; fallbackName: string } {
  if (kind === 'ipynb') return { path: `/v1/threads/${threadId}/notebook`, fallbackName: 'analysis.ipynb' };
  if (kind === 'zip')
    return { path: `/v1/threads/${threadId}/export?format=zip`, fallbackName: `${threadId}.zip` };
  return { path: `/v1/threads/${threadId}/report?format=${kind}`, fallbackName: `report.${kind}` };
}
