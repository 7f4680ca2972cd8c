import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import type { WorkspaceFile } from '../api/types.ts';
import { formatBytes, t } from '../i18n/i18n.ts';
import { droppedFiles, pickedFiles, type TreeNode, treeOf } from '../lib/files.ts';

export interface Upload {
  id: number;
  name: string;
  fraction: number;
  error?: string;
}

/** The thread's files as a tree with sizes and their origin; drop or pick files (and folders) to upload. */
export function WorkspacePanel(props: {
  files: WorkspaceFile[];
  generated: Set<string>;
  uploads: Upload[];
  selected: string | undefined;
  onUpload: (files: Array<{ file: File; folder: string }>) => void;
  /** Stops an upload under way (its row goes). */
  onCancelUpload?: (id: number) => void;
  onOpen: (path: string) => void;
  onDownload: (path: string) => void;
  onDelete: (path: string) => void;
  uploadRef: { current: HTMLInputElement | null };
}) {
  const [over, setOver] = useState(false);
  const tree = treeOf(props.files);
  return (
    <section
      class={`workspace${over ? ' drop-over' : ''}`}
      aria-label={t('files.title')}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(props.onUpload);
      }}
    >
      <div class="panel-head">
        <h2>{t('files.title')}</h2>
        <span class="spacer" />
        <label class="button small" title={t('files.upload')}>
          {t('files.upload')}
          <input
            ref={props.uploadRef}
            type="file"
            multiple
            class="visually-hidden"
            id="upload-input"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files?.length) props.onUpload(pickedFiles(input.files));
              input.value = '';
            }}
          />
        </label>
        <label class="button small ghost" title={t('files.uploadFolder')}>
          {t('files.uploadFolder')}
          <input
            type="file"
            multiple
            class="visually-hidden"
            {...{ webkitdirectory: '' }}
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              if (input.files?.length) props.onUpload(pickedFiles(input.files));
              input.value = '';
            }}
          />
        </label>
      </div>
      {props.uploads.length > 0 && (
        <ul class="uploads">
          {props.uploads.map((u) => (
            <li key={u.id} class={u.error ? 'failed' : ''} role={u.error ? 'alert' : undefined}>
              {u.error ? (
                t('files.failed', { name: u.name, message: u.error })
              ) : (
                <>
                  <span class="upload-head">
                    <span>{t('files.uploading', { name: u.name })}</span>
                    {props.onCancelUpload && (
                      <button
                        type="button"
                        class="ghost icon cancel-upload"
                        title={t('files.cancelUpload', { name: u.name })}
                        aria-label={t('files.cancelUpload', { name: u.name })}
                        onClick={() => props.onCancelUpload?.(u.id)}
                      >
                        ×
                      </button>
                    )}
                  </span>
                  <progress max={1} value={u.fraction} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <div class="tree">
        {props.files.length === 0 ? (
          <p class="muted drop-hint">{t('files.empty')}</p>
        ) : (
          tree.children.map((node) => <TreeItem key={node.path} node={node} depth={0} {...props} />)
        )}
      </div>
      <p class="muted drop-label">{t('files.drop')}</p>
    </section>
  );
}

function TreeItem(props: {
  node: TreeNode;
  depth: number;
  generated: Set<string>;
  selected: string | undefined;
  onOpen: (path: string) => void;
  onDownload: (path: string) => void;
  onDelete: (path: string) => void;
}) {
  const [open, setOpen] = useState(true);
  const { node } = props;
  const pad = { paddingLeft: `${8 + props.depth * 14}px` };
  if (!node.file) {
    return (
      <div>
        <button type="button" class="tree-row folder" style={pad} onClick={() => setOpen(!open)}>
          <span class="twisty">{open ? '▾' : '▸'}</span>
          <span class="name">{node.name}/</span>
          <span class="muted size">{formatBytes(node.bytes)}</span>
        </button>
        {open &&
          node.children.map((child) => (
            <TreeItem key={child.path} {...props} node={child} depth={props.depth + 1} />
          ))}
      </div>
    );
  }
  const generated = props.generated.has(node.path);
  return (
    <div class={`tree-file${props.selected === node.path ? ' selected' : ''}`}>
      <button
        type="button"
        class="tree-row"
        style={pad}
        onClick={() => props.onOpen(node.path)}
        data-path={node.path}
      >
        <span
          class={`dot ${generated ? 'generated' : 'uploaded'}`}
          title={generated ? t('files.generated') : t('files.uploaded')}
        />
        <span class="name">{node.name}</span>
        <span class={`tag ${generated ? 'generated' : 'uploaded'}`}>
          {generated ? t('files.generated') : t('files.uploaded')}
        </span>
        <span class="muted size">{formatBytes(node.bytes)}</span>
      </button>
      <span class="row-actions">
        <button
          type="button"
          class="ghost icon"
          title={t('files.download')}
          aria-label={`${t('files.download')} ${node.path}`}
          onClick={() => props.onDownload(node.path)}
        >
          ↓
        </button>
        <button
          type="button"
          class="ghost icon"
          title={t('files.delete')}
          aria-label={`${t('files.delete')} ${node.path}`}
          onClick={() => props.onDelete(node.path)}
        >
          ×
        </button>
      </span>
    </div>
  );
}

/** The server keeps file names to this many bytes (its safeFilename): longer ones are shortened. */
const MAX_NAME_BYTES = 200;

/**
 * What to tell the user when a file was saved under another name than the one sent: a name
 * over the server's limit is shortened, a taken one numbered (issue 31, defect 7).
 */
export function renamedNotice(sent: string, saved: string): string | undefined {
  if (saved === sent) return undefined;
  const base = sent.split('/').pop() ?? sent;
  const long = new TextEncoder().encode(base).length > MAX_NAME_BYTES;
  return t(long ? 'files.shortened' : 'files.renamed', { name: sent, path: saved, bytes: MAX_NAME_BYTES });
}

export function uploadError(error: unknown, name: string): string {
  // The server's 413 names the limit and the variable that raises it.
  if (error instanceof ApiError && error.status === 413)
    return error.message.startsWith('HTTP ') ? t('files.tooLarge', { name }) : error.message;
  if (error instanceof ApiError && error.status === 0) return t('error.network');
  return (error as Error).message;
}
