import { useEffect, useRef, useState } from 'preact/hooks';
import type { CellStep } from '../../../src/agent/view/steps.ts';
import { api } from '../api/client.ts';
import type { Preview } from '../api/types.ts';
import { formatBytes, formatNumber, t } from '../i18n/i18n.ts';
import { problemText } from '../lib/file-problems.ts';
import { fileUrl } from '../lib/files.ts';
import { useDebounced, useLazy } from '../lib/hooks.ts';
import { useScrollCue } from '../lib/scroll-cue.ts';
import { EMPTY_VIEW, type TableView, viewParams } from '../lib/table-view.ts';
import { useFileImage } from '../lib/use-file-image.ts';
import { viewImage } from '../state/image-viewer.ts';
import { ChartArtifact } from './ChartArtifact.tsx';
import { ProfileView } from './ProfileView.tsx';
import { RENDER_MAX_BYTES, RenderedDocument, renderable } from './RenderedDocument.tsx';
import { TableTools } from './TableTools.tsx';

/** The right panel: a preview of the selected file, or the selected cell's code to edit and re-run. */
export function Inspector(props: {
  threadId: string | undefined;
  tab: 'preview' | 'code';
  onTab: (tab: 'preview' | 'code') => void;
  path: string | undefined;
  fileVersion: string;
  cell: CellStep | undefined;
  running: boolean;
  onRerun: (code: string) => Promise<void>;
}) {
  return (
    <aside class="inspector" aria-label={t('nav.inspector')}>
      <div class="tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={props.tab === 'preview'}
          class={props.tab === 'preview' ? 'active' : ''}
          onClick={() => props.onTab('preview')}
        >
          {t('inspector.preview')}
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={props.tab === 'code'}
          class={props.tab === 'code' ? 'active' : ''}
          onClick={() => props.onTab('code')}
        >
          {t('inspector.code')}
        </button>
      </div>
      <div class="inspector-body">
        {props.tab === 'preview' ? (
          props.threadId && props.path ? (
            <FilePreview threadId={props.threadId} path={props.path} version={props.fileVersion} />
          ) : (
            <p class="muted pad">{t('inspector.nothing')}</p>
          )
        ) : props.cell ? (
          <CellEditor cell={props.cell} running={props.running} onRerun={props.onRerun} />
        ) : (
          <p class="muted pad">{t('inspector.noCell')}</p>
        )}
      </div>
    </aside>
  );
}

function FilePreview(props: { threadId: string; path: string; version: string }) {
  const [preview, setPreview] = useState<Preview>();
  const [error, setError] = useState<string>();
  const [choice, setChoice] = useState<string>();
  const [view, setView] = useState<TableView>(EMPTY_VIEW);
  // Typing in a filter asks the server once the typing pauses, not at every key.
  const settled = useDebounced(view, 350);
  const [source, setSource] = useState(false);
  // Data or profile: kept from file to file, so tables can be profiled one after another.
  const [profiling, setProfiling] = useState(false);
  const tabs = useRef<HTMLDivElement>(null);
  useScrollCue(tabs, [preview]);
  const grid = useLazy(() => import('../lazy/grid.tsx'));
  const base = fileUrl(props.threadId, props.path, 'preview');
  const param = preview?.sheets ? 'sheet' : 'table';
  const query = preview?.queryable ? viewParams(settled, preview.columns) : new URLSearchParams();
  if (choice) query.set(param, choice);
  const url = query.size > 0 ? `${base}?${query}` : base;

  useEffect(() => {
    setChoice(undefined);
    setView(EMPTY_VIEW);
    setSource(false);
  }, [props.path]);
  useEffect(() => {
    let live = true;
    setError(undefined);
    api.preview(url, { offset: 0, limit: 200 }).then(
      (p) => live && setPreview(p),
      (e: Error) => {
        if (!live) return;
        setError(e.message);
        setPreview(undefined);
      },
    );
    return () => {
      live = false;
    };
  }, [url, props.version]);

  const errorLine = error && (
    <p class="error-line pad" role="alert">
      {error}
    </p>
  );
  // A query the server refuses leaves the table as it was, with the reason above it.
  if (error && (!preview || preview.path !== props.path || !preview.queryable)) return errorLine;
  if (!preview || preview.path !== props.path) return <p class="muted pad">{t('inspector.loading')}</p>;
  const choices = preview.sheets ?? preview.tables;
  const document = renderable(props.path);
  const rendered =
    document !== undefined &&
    !source &&
    preview.bytes <= RENDER_MAX_BYTES &&
    (preview.kind === 'text' || preview.kind === 'json');
  const profilable =
    !rendered && (preview.kind === 'table' || preview.kind === 'json') && preview.columns.length > 0;
  const profiled = profilable && profiling;
  const problem = problemText(preview);
  return (
    <div class="preview">
      <div class="preview-head">
        <strong class="path" title={preview.path}>
          {preview.path}
        </strong>
        <span class="muted">{formatBytes(preview.bytes)}</span>
        {preview.total_rows !== null &&
          !rendered &&
          (preview.kind === 'table' || preview.kind === 'json' || preview.kind === 'text') && (
            <span class="muted" id="preview-rows">
              {t('inspector.rows', {
                count: `${preview.total_rows_estimated ? '~' : ''}${formatNumber(preview.total_rows)}`,
              })}
            </span>
          )}
      </div>
      {choices && choices.length > 0 && (
        <div
          class="preview-tabs"
          ref={tabs}
          role="tablist"
          aria-label={preview.sheets ? t('inspector.sheet') : t('inspector.table')}
        >
          {choices.map((name) => (
            <button
              type="button"
              role="tab"
              key={name}
              aria-selected={(preview.sheet ?? preview.table) === name}
              class={(preview.sheet ?? preview.table) === name ? 'active' : ''}
              onClick={() => setChoice(name)}
            >
              {name}
            </button>
          ))}
        </div>
      )}
      {document && preview.bytes <= RENDER_MAX_BYTES && (
        <div class="preview-tabs" role="tablist" aria-label={t('inspector.view')}>
          <button
            type="button"
            role="tab"
            id="view-rendered"
            aria-selected={!source}
            class={source ? '' : 'active'}
            onClick={() => setSource(false)}
          >
            {t('inspector.rendered')}
          </button>
          <button
            type="button"
            role="tab"
            id="view-source"
            aria-selected={source}
            class={source ? 'active' : ''}
            onClick={() => setSource(true)}
          >
            {t('inspector.source')}
          </button>
        </div>
      )}
      {profilable && (
        <div class="preview-tabs" role="tablist" aria-label={t('inspector.view')}>
          <button
            type="button"
            role="tab"
            id="view-data"
            aria-selected={!profiling}
            class={profiling ? '' : 'active'}
            onClick={() => setProfiling(false)}
          >
            {t('inspector.data')}
          </button>
          <button
            type="button"
            role="tab"
            id="view-profile"
            aria-selected={profiling}
            class={profiling ? 'active' : ''}
            onClick={() => setProfiling(true)}
          >
            {t('inspector.profile')}
          </button>
        </div>
      )}
      {rendered && document === 'chart' && (
        <ChartArtifact
          threadId={props.threadId}
          path={props.path}
          bytes={preview.bytes}
          version={props.version}
        />
      )}
      {rendered && document !== 'chart' && (
        <RenderedDocument
          threadId={props.threadId}
          path={props.path}
          version={props.version}
          kind={document}
        />
      )}
      {preview.queryable && !profiled && (
        <TableTools
          view={view}
          onView={setView}
          csvUrl={`${fileUrl(props.threadId, props.path, 'table-csv')}?${viewParams(settled, preview.columns)}`}
          fileName={preview.path.split('/').pop() ?? 'table'}
        />
      )}
      {errorLine}
      {!rendered && preview.truncated && <p class="warn">{t('inspector.truncated')}</p>}
      {preview.kind === 'image' && (
        <PreviewImage threadId={props.threadId} path={props.path} version={props.version} />
      )}
      {preview.kind === 'pdf' && <PreviewPdf threadId={props.threadId} path={props.path} />}
      {problem && (
        <p class="warn" id="preview-problem" role="status">
          {problem}
        </p>
      )}
      {preview.kind === 'binary' && !problem && <p class="muted pad">{t('inspector.binary')}</p>}
      {profiled && (
        <ProfileView
          threadId={props.threadId}
          path={preview.path}
          version={props.version}
          sheet={preview.sheet}
          table={preview.table}
        />
      )}
      {!rendered &&
        !profiled &&
        (preview.kind === 'table' || preview.kind === 'json' || preview.kind === 'text') &&
        (grid ? (
          <grid.DataGrid
            first={preview}
            url={url}
            mode={preview.kind === 'text' ? 'text' : 'table'}
            {...(preview.queryable ? { view, onView: setView } : {})}
          />
        ) : (
          <p class="muted pad">{t('inspector.loading')}</p>
        ))}
    </div>
  );
}

function PreviewImage(props: { threadId: string; path: string; version: string }) {
  const src = useFileImage(props);
  return (
    <div class="preview-image">
      {src && (
        <button
          type="button"
          class="enlarge"
          title={t('viewer.open')}
          onClick={() => viewImage({ threadId: props.threadId, path: props.path, version: props.version })}
        >
          <img src={src} alt={props.path} id="preview-image" />
        </button>
      )}
    </div>
  );
}

function PreviewPdf(props: { threadId: string; path: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const pdf = useLazy(() => import('../lazy/pdf.ts'));
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!pdf || !ref.current) return;
    const parent = ref.current;
    void api
      .resource(fileUrl(props.threadId, props.path))
      .then((r) => r.arrayBuffer())
      .then((data) => pdf.renderPdf(parent, data))
      .catch((e: Error) => setError(e.message));
  }, [pdf, props.threadId, props.path]);
  return (
    <div class="preview-pdf" ref={ref}>
      {error ? <p class="error-line">{error}</p> : <p class="muted">{t('inspector.loading')}</p>}
    </div>
  );
}

function CellEditor(props: { cell: CellStep; running: boolean; onRerun: (code: string) => Promise<void> }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<ReturnType<typeof import('../lazy/editor.ts').createEditor>>(undefined);
  const module = useLazy(() => import('../lazy/editor.ts'));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!module || !host.current) return;
    editor.current?.destroy();
    editor.current = module.createEditor(
      host.current,
      props.cell.code,
      props.cell.language,
      t('inspector.code'),
    );
    return () => editor.current?.destroy();
  }, [module, props.cell.cellId, props.cell.code]);
  return (
    <div class="cell-editor">
      <p class="muted">{t('inspector.rerunHint')}</p>
      <div class="editor-host" ref={host}>
        {!module && <pre class="code">{props.cell.code}</pre>}
      </div>
      <button
        type="button"
        class="primary"
        id="rerun"
        disabled={props.running || busy || !module}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onRerun(editor.current?.value() ?? props.cell.code);
          } finally {
            setBusy(false);
          }
        }}
      >
        {t('inspector.rerun')}
      </button>
    </div>
  );
}
