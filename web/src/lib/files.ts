import type { WorkspaceFile } from '../api/types.ts';

export interface TreeNode {
  name: string;
  path: string;
  file?: WorkspaceFile;
  children: TreeNode[];
  bytes: number;
}

/** The workspace's flat list as a tree: folders first, then files, each by name. */
export function treeOf(files: WorkspaceFile[]): TreeNode {
  const root: TreeNode = { name: '', path: '', children: [], bytes: 0 };
  for (const file of files) {
    const parts = file.path.split('/');
    let node = root;
    parts.forEach((part, i) => {
      const path = parts.slice(0, i + 1).join('/');
      let child = node.children.find((c) => c.name === part && (i === parts.length - 1) === !!c.file);
      if (!child) {
        child = { name: part, path, children: [], bytes: 0 };
        node.children.push(child);
      }
      child.bytes += file.bytes;
      if (i === parts.length - 1) child.file = file;
      node = child;
    });
  }
  const sort = (node: TreeNode) => {
    node.children.sort((a, b) => (!!a.file === !!b.file ? a.name.localeCompare(b.name) : a.file ? 1 : -1));
    node.children.forEach(sort);
  };
  sort(root);
  return root;
}

/** A thread file's API path, each segment encoded. */
export function fileUrl(
  threadId: string,
  path: string,
  kind: 'files' | 'preview' | 'table-csv' = 'files',
): string {
  return `/v1/threads/${threadId}/${kind}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Files (and folders, walked) from a drop, each with the folder it goes into. */
export async function droppedFiles(data: DataTransfer): Promise<Array<{ file: File; folder: string }>> {
  const out: Array<{ file: File; folder: string }> = [];
  const entries = [...data.items]
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry?.() : null))
    .filter((e): e is FileSystemEntry => !!e);
  if (entries.length === 0) {
    for (const file of data.files) out.push({ file, folder: '' });
    return out;
  }
  const walk = async (entry: FileSystemEntry, folder: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) =>
        (entry as FileSystemFileEntry).file(resolve, reject),
      );
      out.push({ file, folder });
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      const sub = folder ? `${folder}/${entry.name}` : entry.name;
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
          reader.readEntries(resolve, reject),
        );
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, sub);
      }
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

/** Files from an <input type=file> (a folder picker keeps each file's relative folder). */
export function pickedFiles(list: FileList): Array<{ file: File; folder: string }> {
  return [...list].map((file) => {
    const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath ?? '';
    const folder = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '';
    return { file, folder };
  });
}
