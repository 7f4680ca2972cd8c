import { useEffect, useRef, useState } from 'preact/hooks';
import { chartSpecKind } from '../../../src/contract/chart-spec.ts';
import { api, blobUrl } from '../api/client.ts';
import { t } from '../i18n/i18n.ts';
import { sanitizeDocument } from '../lib/document-html.ts';
import { fileUrl } from '../lib/files.ts';
import { type NotebookCell, parseNotebook } from '../lib/notebook.ts';
import { Markdown } from './Markdown.tsx';

/** Files the inspector can show rendered as well as as source. */
export function renderable(path: string): 'html' | 'notebook' | 'chart' | undefined {
  if (/\.html?$/i.test(path)) return 'html';
  if (/\.ipynb$/i.test(path)) return 'notebook';
  if (chartSpecKind(path)) return 'chart';
  return undefined;
}

/** Above this a document is shown as source only: rendering reads the whole file into the page. */
export const RENDER_MAX_BYTES = 20 * 2 ** 20;

/** A workspace HTML file or notebook as a reader sees it (sanitised; nothing in it runs). */
export function RenderedDocument(props: {
  threadId: string;
  path: string;
  version: string;
  kind: 'html' | 'notebook';
}) {
  const [text, setText] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setText(undefined);
    setError(undefined);
    api.downloadFile(props.threadId, props.path).then(
      (bytes) => live && setText(new TextDecoder().decode(bytes)),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [props.threadId, props.path, props.version]);
  if (error) return <p class="error-line pad">{error}</p>;
  if (text === undefined) return <p class="muted pad">{t('inspector.loading')}</p>;
  const folder = props.path.includes('/') ? props.path.slice(0, props.path.lastIndexOf('/') + 1) : '';
  if (props.kind === 'html') return <HtmlDocument html={text} threadId={props.threadId} folder={folder} />;
  const cells = parseNotebook(text);
  if (cells instanceof Error)
    return <p class="warn pad">{t('inspector.notNotebook', { reason: cells.message })}</p>;
  return <Notebook cells={cells} threadId={props.threadId} folder={folder} />;
}

function HtmlDocument(props: { html: string; threadId: string; folder: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    root.innerHTML = sanitizeDocument(props.html);
    loadWorkspaceImages(root, props.threadId, props.folder);
  }, [props.html, props.threadId, props.folder]);
  return <div class="markdown rendered-document" id="rendered-document" ref={ref} />;
}

function Notebook(props: { cells: NotebookCell[]; threadId: string; folder: string }) {
  return (
    <div class="rendered-document notebook" id="rendered-document">
      {props.cells.map((cell, i) =>
        cell.kind === 'markdown' ? (
          <Markdown key={i} text={cell.source} threadId={props.threadId} />
        ) : (
          <div class="nb-cell" key={i}>
            <pre class="code">{cell.source}</pre>
            {cell.outputs.map((output, j) =>
              output.kind === 'image' ? (
                <img key={j} class="nb-image" alt="" src={`data:${output.mime};base64,${output.base64}`} />
              ) : output.kind === 'markdown' ? (
                <Markdown key={j} text={output.text} threadId={props.threadId} />
              ) : output.kind === 'html' ? (
                <HtmlDocument key={j} html={output.html} threadId={props.threadId} folder={props.folder} />
              ) : (
                <pre key={j} class={output.error ? 'output error' : 'output'}>
                  {output.text}
                </pre>
              ),
            )}
          </div>
        ),
      )}
    </div>
  );
}

/** Images the document names by a workspace-relative path, loaded with the key. */
function loadWorkspaceImages(root: HTMLElement, threadId: string, folder: string) {
  for (const img of root.querySelectorAll<HTMLImageElement>('img[data-src]')) {
    let path = `${folder}${(img.dataset.src ?? '').replace(/^\.\//, '').split(/[?#]/)[0]}`;
    try {
      path = decodeURIComponent(path);
    } catch {
      // keep it as written
    }
    if (path.split('/').includes('..')) continue;
    void blobUrl(fileUrl(threadId, path)).then(
      (url) => {
        img.src = url;
      },
      () => img.classList.add('broken'),
    );
  }
}
