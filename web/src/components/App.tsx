import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { CellStep } from '../../../src/agent/view/steps.ts';
import { type ApiError, api, download } from '../api/client.ts';
import { EXPORT_KINDS, type ExportKind, exportTarget } from '../api/exports.ts';
import { type ThreadSettings, threadModel, threadSettings } from '../api/types.ts';
import { currentLanguage, setLanguage, t } from '../i18n/i18n.ts';
import { fileUrl } from '../lib/files.ts';
import { useLanguage } from '../lib/hooks.ts';
import { announce } from '../state/changes.ts';
import { ThreadSession } from '../state/thread-session.ts';
import { threadConnectionIds, useDataSources } from '../state/use-data-sources.ts';
import { useKeyPrompt } from '../state/use-key-prompt.ts';
import { useModels } from '../state/use-models.ts';
import { useThreadRoute } from '../state/use-route.ts';
import { useShortcuts } from '../state/use-shortcuts.ts';
import { useThreadSession } from '../state/use-thread-session.ts';
import { useUploads } from '../state/use-uploads.ts';
import { Chat, RunningIndicator } from './Chat.tsx';
import { Composer } from './Composer.tsx';
import { DataSources } from './DataSources.tsx';
import { ConfirmDialog, KeyDialog, SettingsDialog, ShortcutsDialog } from './Dialogs.tsx';
import { ImageViewer } from './ImageViewer.tsx';
import { Inspector } from './Inspector.tsx';
import { ThreadList } from './ThreadList.tsx';
import { WorkspacePanel } from './WorkspacePanel.tsx';

type Pane = 'threads' | 'chat' | 'inspector';

/**
 * The studio: threads and files (left), chat (centre), inspector (right); tabs on a narrow screen.
 * Layout and the wiring of the hooks, one per concern (state/use-*.ts); API calls go through
 * api/client.ts.
 */
export function App() {
  useLanguage();
  const route = useThreadRoute();
  const threadId = route.threadId;
  // What the toast says: a failure, or news of something done (`info`), shown calmer.
  const [notice, setNotice] = useState<{ text: string; info?: true }>();
  const showError = (text: string) => setNotice({ text });
  const showInfo = (text: string) => setNotice({ text, info: true });
  const opened = useThreadSession(threadId, (error) =>
    showError(t('error.generic', { message: error.message })),
  );
  const { session, missing } = opened;
  const models = useModels();
  const keyPrompt = useKeyPrompt();
  const uploads = useUploads(showInfo);
  const [draft, setDraft] = useState<{ model?: string; settings: ThreadSettings }>({ settings: {} });
  const [inspector, setInspector] = useState<{ tab: 'preview' | 'code'; path?: string; cell?: CellStep }>({
    tab: 'preview',
  });
  const [confirm, setConfirm] = useState<{ message: string; action: () => void }>();
  const [dialog, setDialog] = useState<'settings' | 'shortcuts'>();
  const [pane, setPane] = useState<Pane>('chat');
  // A PDF takes seconds to render: the export menu says what it is doing until the file arrives.
  const [exporting, setExporting] = useState<ExportKind>();
  const searchRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<HTMLInputElement>(null);

  // Another thread: the inspector starts empty.
  useEffect(() => setInspector({ tab: 'preview' }), [threadId]);

  const navigate = useCallback(
    (id: string | undefined) => {
      route.navigate(id);
      setPane('chat');
    },
    [route.navigate],
  );

  const model = session ? threadModel(session.thread) : draft.model;
  const settings = (session ? threadSettings(session.thread) : draft.settings) ?? {};

  /** The open thread, or a new one made with the draft's model and settings (and opened in place). */
  const ensureThread = async (): Promise<ThreadSession> => {
    if (session) return session;
    const thread = await api.createThread({
      metadata: { ...(draft.model ? { model: draft.model } : {}), settings: draft.settings },
    });
    const made = await ThreadSession.open(thread.id);
    opened.adopt(made);
    route.navigate(thread.id);
    announce('threads');
    return made;
  };

  const report = (error: unknown) => {
    const e = error as ApiError;
    // Busy: the thread runs something this page has not seen (another tab asked); show it.
    if (e.status === 409) void session?.syncRuns().catch(() => {});
    showError(
      e.status === 409
        ? t('chat.busy')
        : e.status === 0
          ? t('error.network')
          : t('error.generic', { message: e.message }),
    );
  };

  const sources = useDataSources({ ensureThread, onError: report });

  /** Starts a run; true once it started, else the error is shown. */
  const startRun = async (start: () => Promise<void>): Promise<boolean> => {
    try {
      await start();
      announce('threads');
      return true;
    } catch (error) {
      report(error);
      return false;
    }
  };
  const onSend = (question: string) =>
    startRun(async () => {
      const target = await ensureThread();
      await target.ask(question, model, settings);
      // The run's start gave the thread its title.
      void target.refreshThread().catch(() => {});
    });
  const onRevise = (runId: string, question: string | undefined) =>
    startRun(async () => session?.revise(runId, question, model, settings));

  const onUpload = async (files: Array<{ file: File; folder: string }>) => {
    if (files.length === 0) return;
    let target: ThreadSession;
    try {
      target = await ensureThread();
    } catch (error) {
      return report(error);
    }
    await uploads.start(target.id, files);
    await target.refreshFiles();
  };

  const onSettings = (nextModel: string | undefined, next: ThreadSettings) => {
    if (!session) return setDraft({ model: nextModel, settings: next });
    const metadata = { ...session.thread.metadata, model: nextModel, settings: next };
    session.setThread({ ...session.thread, metadata });
    void api.updateThread(session.id, { metadata }).then((thread) => session.setThread(thread), report);
  };

  const openFile = (path: string) => {
    setInspector({ tab: 'preview', path, cell: inspector.cell });
    setPane('inspector');
  };
  const inspectCell = (cell: CellStep) => {
    setInspector({ tab: 'code', path: inspector.path, cell });
    setPane('inspector');
  };

  const running = !!session?.active;
  const stop = () => void session?.stop().catch(report);

  useShortcuts({
    running,
    stop,
    showShortcuts: () => setDialog('shortcuts'),
    search: () => {
      setPane('threads');
      requestAnimationFrame(() => searchRef.current?.focus());
    },
    newThread: () => navigate(undefined),
    upload: () => uploadRef.current?.click(),
  });

  const exportAs = (kind: ExportKind) => {
    if (!session || exporting) return;
    const { path, fallbackName } = exportTarget(session.id, kind);
    setExporting(kind);
    void download(path, fallbackName)
      .catch((e: Error) => showError(t('export.failed', { message: e.message })))
      .finally(() => setExporting(undefined));
  };

  const generated = session?.generated() ?? new Set<string>();
  const files = session?.files ?? [];
  const title = session ? session.thread.title || t('threads.untitled') : '';

  return (
    <div class={`app pane-${pane}`}>
      <header class="topbar">
        <a
          href="/"
          class="brand"
          onClick={(e) => {
            e.preventDefault();
            navigate(undefined);
          }}
        >
          <img src="/favicon.svg" alt="" width={22} height={22} />
          <span>{t('app.name')}</span>
        </a>
        {title && (
          <span class="thread-title" title={title}>
            {title}
          </span>
        )}
        <span class="spacer" />
        {session && (
          <details class="menu" id="export-menu">
            <summary class="button small" aria-busy={exporting !== undefined}>
              {exporting ? t('export.working', { kind: t(`export.${exporting}`) }) : t('export.title')}
            </summary>
            <div class="menu-items" role="menu">
              {EXPORT_KINDS.map((kind) => (
                <button
                  type="button"
                  role="menuitem"
                  key={kind}
                  data-export={kind}
                  disabled={exporting !== undefined}
                  onClick={(e) => {
                    (e.currentTarget.closest('details') as HTMLDetailsElement).open = false;
                    exportAs(kind);
                  }}
                >
                  {t(`export.${kind}`)}
                </button>
              ))}
            </div>
          </details>
        )}
        <button
          type="button"
          class="small ghost"
          id="language-toggle"
          aria-label={t('a11y.language')}
          onClick={() => setLanguage(currentLanguage() === 'en' ? 'zh' : 'en')}
        >
          {currentLanguage() === 'en' ? '中文' : 'EN'}
        </button>
        <button
          type="button"
          class="small ghost"
          id="shortcuts-button"
          aria-label={t('shortcuts.open')}
          title={t('shortcuts.open')}
          onClick={() => setDialog('shortcuts')}
        >
          ?
        </button>
        <button type="button" class="small" id="settings-button" onClick={() => setDialog('settings')}>
          {t('settings.title')}
        </button>
      </header>

      <div class="columns">
        <div class="left">
          <ThreadList
            currentId={threadId}
            onOpen={navigate}
            onRenamed={(thread) => thread.id === session?.id && session.setThread(thread)}
            onDelete={(thread) =>
              setConfirm({
                message: t('threads.deleteConfirm', { title: thread.title || t('threads.untitled') }),
                action: () =>
                  void api.deleteThread(thread.id).then(() => {
                    announce('threads');
                    if (thread.id === threadId) navigate(undefined);
                  }, report),
              })
            }
            searchRef={searchRef}
          />
          <WorkspacePanel
            files={files}
            generated={generated}
            uploads={uploads.uploads}
            onCancelUpload={uploads.cancel}
            selected={inspector.path}
            onUpload={(list) => void onUpload(list)}
            onOpen={openFile}
            onDownload={(path) =>
              session && void download(fileUrl(session.id, path), path.split('/').pop() ?? path).catch(report)
            }
            onDelete={(path) =>
              session &&
              setConfirm({
                message: t('files.deleteConfirm', { path }),
                action: () =>
                  void api.deleteFile(session.id, path).then(() => session.refreshFiles(), report),
              })
            }
            uploadRef={uploadRef}
          />
          <DataSources
            connections={sources.connections}
            schemas={sources.schemas}
            used={threadConnectionIds(session)}
            preview={sources.preview}
            bringing={sources.bringing}
            onExpand={sources.expand}
            onPreview={sources.showPreview}
            onClosePreview={sources.closePreview}
            onBring={(connectionId, source, name) =>
              void sources.bring(connectionId, source, name).then((path) => {
                if (path) showInfo(t('sources.brought', { path }));
              })
            }
          />
        </div>

        <main class="centre" aria-label={t('nav.chat')}>
          {missing ? (
            <div class="welcome">
              <p role="alert">{t('threads.notFound')}</p>
            </div>
          ) : (
            <Chat
              session={session}
              selectedCell={inspector.tab === 'code' ? inspector.cell?.cellId : undefined}
              onInspectCell={inspectCell}
              onOpenFile={openFile}
              onAsk={(question) => void onSend(question)}
              onRevise={onRevise}
            />
          )}
          <RunningIndicator session={session} />
          {notice && (
            <div class={notice.info ? 'toast info' : 'toast'} role="alert">
              <span>{notice.text}</span>
              <button
                type="button"
                class="ghost icon"
                aria-label={t('a11y.close')}
                onClick={() => setNotice(undefined)}
              >
                ×
              </button>
            </div>
          )}
          <Composer
            files={files}
            generated={generated}
            running={running}
            disabled={missing}
            onSend={onSend}
            onStop={stop}
            onOpenFile={openFile}
          />
        </main>

        <Inspector
          threadId={session?.id}
          tab={inspector.tab}
          onTab={(tab) => setInspector({ ...inspector, tab })}
          path={inspector.path}
          fileVersion={String(files.find((f) => f.path === inspector.path)?.modified_at ?? '')}
          cell={inspector.cell}
          running={running}
          onRerun={async (code) => {
            try {
              await session?.rerun(code);
              setPane('chat');
            } catch (error) {
              report(error);
            }
          }}
        />
      </div>

      <nav class="tabbar" aria-label={t('a11y.menu')}>
        {(['threads', 'chat', 'inspector'] as Pane[]).map((p) => (
          <button
            type="button"
            key={p}
            class={pane === p ? 'active' : ''}
            aria-pressed={pane === p}
            data-pane={p}
            onClick={() => setPane(p)}
          >
            {t(p === 'threads' ? 'nav.files' : p === 'chat' ? 'nav.chat' : 'nav.inspector')}
          </button>
        ))}
      </nav>

      {confirm && (
        <ConfirmDialog
          message={confirm.message}
          onCancel={() => setConfirm(undefined)}
          onConfirm={() => {
            confirm.action();
            setConfirm(undefined);
          }}
        />
      )}
      <ImageViewer />
      {keyPrompt.asking && <KeyDialog invalid={keyPrompt.asking.invalid} onSubmit={keyPrompt.submit} />}
      {dialog === 'shortcuts' && <ShortcutsDialog onClose={() => setDialog(undefined)} />}
      {dialog === 'settings' && (
        <SettingsDialog
          models={models}
          model={model}
          settings={settings}
          onChange={onSettings}
          onClose={() => setDialog(undefined)}
        />
      )}
    </div>
  );
}
