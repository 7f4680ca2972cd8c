import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { CellStep } from '../../../src/agent/view/steps.ts';
import { type ApiError, api, download, setKeyPrompt, uploadFile } from '../api/client.ts';
import type { List, Model, Thread, ThreadSettings } from '../api/types.ts';
import { currentLanguage, setLanguage, t } from '../i18n/i18n.ts';
import { fileUrl } from '../lib/files.ts';
import { useLanguage, useSubscription } from '../lib/hooks.ts';
import { ThreadSession } from '../state/thread-session.ts';
import { Chat, RunningIndicator } from './Chat.tsx';
import { Composer } from './Composer.tsx';
import { ConfirmDialog, KeyDialog, SettingsDialog, ShortcutsDialog } from './Dialogs.tsx';
import { Inspector } from './Inspector.tsx';
import { ThreadList } from './ThreadList.tsx';
import { renamedNotice, type Upload, uploadError, WorkspacePanel } from './WorkspacePanel.tsx';

type Pane = 'threads' | 'chat' | 'inspector';

function threadIdOfUrl(): string | undefined {
  return /^\/t\/(thread-[0-9a-f]{24})\/?$/.exec(location.pathname)?.[1];
}

let uploadIds = 0;

/** The studio: threads and files (left), chat (centre), inspector (right); tabs on a narrow screen. */
export function App() {
  useLanguage();
  const [threadId, setThreadId] = useState(threadIdOfUrl());
  const [session, setSession] = useState<ThreadSession>();
  const [models, setModels] = useState<Model[]>([]);
  const [draft, setDraft] = useState<{ model?: string; settings: ThreadSettings }>({ settings: {} });
  const [listVersion, setListVersion] = useState(0);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [inspector, setInspector] = useState<{ tab: 'preview' | 'code'; path?: string; cell?: CellStep }>({
    tab: 'preview',
  });
  const [confirm, setConfirm] = useState<{ message: string; action: () => void }>();
  const [keyPrompt, setKeyPromptState] = useState<{ invalid: boolean; resolve: (key: string) => void }>();
  const [dialog, setDialog] = useState<'settings' | 'shortcuts'>();
  const [pane, setPane] = useState<Pane>('chat');
  const [notice, setNotice] = useState<string>();
  const [missing, setMissing] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<HTMLInputElement>(null);
  // A thread the app just made is opened once, not again when the URL changes to it.
  const made = useRef<ThreadSession | undefined>(undefined);
  const subscribe = useCallback(
    (listener: () => void) => session?.subscribe(listener) ?? (() => {}),
    [session],
  );
  useSubscription(subscribe);

  useEffect(() => {
    setKeyPrompt((invalid) => new Promise((resolve) => setKeyPromptState({ invalid, resolve })));
    const onPop = () => setThreadId(threadIdOfUrl());
    addEventListener('popstate', onPop);
    void api<List<Model>>('/v1/models').then(
      (list) => setModels(list.data),
      () => {},
    );
    return () => removeEventListener('popstate', onPop);
  }, []);

  // Open the thread of the URL; close the one before (its streams stop, the runs go on).
  useEffect(() => {
    let live = true;
    setMissing(false);
    setInspector({ tab: 'preview' });
    if (!threadId) {
      setSession(undefined);
      return;
    }
    if (made.current?.id === threadId) {
      setSession(made.current);
      made.current = undefined;
      return;
    }
    ThreadSession.open(threadId).then(
      (opened) => {
        if (!live) return opened.close();
        setSession(opened);
      },
      (error: ApiError) => {
        if (!live) return;
        setSession(undefined);
        if (error.status === 404) setMissing(true);
        else setNotice(t('error.generic', { message: error.message }));
      },
    );
    return () => {
      live = false;
    };
  }, [threadId]);
  useEffect(() => () => session?.close(), [session]);
  // Back in view (another tab may have asked something meanwhile): pick up the thread's new runs.
  useEffect(() => {
    if (!session) return;
    const sync = () => {
      if (document.visibilityState === 'visible') void session.syncRuns().catch(() => {});
    };
    addEventListener('focus', sync);
    document.addEventListener('visibilitychange', sync);
    return () => {
      removeEventListener('focus', sync);
      document.removeEventListener('visibilitychange', sync);
    };
  }, [session]);

  const navigate = useCallback((id: string | undefined) => {
    history.pushState(null, '', id ? `/t/${id}` : '/');
    setThreadId(id);
    setPane('chat');
  }, []);

  const model = session ? session.thread.metadata.model : draft.model;
  const settings = (session ? session.thread.metadata.settings : draft.settings) ?? {};

  const ensureThread = async (): Promise<ThreadSession> => {
    if (session) return session;
    const thread = await api<Thread>('/v1/threads', {
      method: 'POST',
      json: { metadata: { ...(draft.model ? { model: draft.model } : {}), settings: draft.settings } },
    });
    const opened = await ThreadSession.open(thread.id);
    history.pushState(null, '', `/t/${thread.id}`);
    made.current = opened;
    setSession(opened);
    setThreadId(thread.id);
    setListVersion((v) => v + 1);
    return opened;
  };

  const report = (error: unknown) => {
    const e = error as ApiError;
    // Busy: the thread runs something this page has not seen (another tab asked); show it.
    if (e.status === 409) void session?.syncRuns().catch(() => {});
    setNotice(
      e.status === 409
        ? t('chat.busy')
        : e.status === 0
          ? t('error.network')
          : t('error.generic', { message: e.message }),
    );
  };

  const onSend = async (question: string): Promise<boolean> => {
    try {
      const target = await ensureThread();
      await target.ask(question, model, settings);
      // The run's start gave the thread its title.
      void target.refreshThread().catch(() => {});
      setListVersion((v) => v + 1);
      return true;
    } catch (error) {
      report(error);
      return false;
    }
  };

  const onUpload = async (files: Array<{ file: File; folder: string }>) => {
    if (files.length === 0) return;
    let target: ThreadSession;
    try {
      target = await ensureThread();
    } catch (error) {
      return report(error);
    }
    await Promise.all(
      files.map(async ({ file, folder }) => {
        const id = ++uploadIds;
        const name = folder ? `${folder}/${file.name}` : file.name;
        setUploads((list) => [...list, { id, name, fraction: 0 }]);
        try {
          const saved = await uploadFile(target.id, file, folder, (fraction) =>
            setUploads((list) => list.map((u) => (u.id === id ? { ...u, fraction } : u))),
          );
          const renamed = renamedNotice(name, saved.path);
          if (renamed) setNotice(renamed);
          setUploads((list) => list.filter((u) => u.id !== id));
        } catch (error) {
          const message = uploadError(error, name);
          setUploads((list) => list.map((u) => (u.id === id ? { ...u, error: message } : u)));
          setTimeout(() => setUploads((list) => list.filter((u) => u.id !== id)), 15_000);
        }
      }),
    );
    await target.refreshFiles();
  };

  const onSettings = (nextModel: string | undefined, next: ThreadSettings) => {
    if (!session) return setDraft({ model: nextModel, settings: next });
    const metadata = { ...session.thread.metadata, model: nextModel, settings: next };
    session.setThread({ ...session.thread, metadata });
    void api<Thread>(`/v1/threads/${session.id}`, { method: 'PATCH', json: { metadata } }).then(
      (thread) => session.setThread(thread),
      report,
    );
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

  // Keyboard: Esc stops, ? (or Ctrl+/ while typing) shows the shortcuts, Ctrl+K searches, Alt+N
  // new thread, Alt+U uploads. Listened to from the first layout (before the first paint), so
  // a key pressed as soon as the page shows is not lost; the handler reads the latest state.
  const keys = useRef({ running, stop, navigate });
  keys.current = { running, stop, navigate };
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable;
      if (document.querySelector('dialog[open]')) return;
      const command = e.ctrlKey || e.metaKey;
      // Alt shortcuts by physical key: on a Mac, Alt+U types a dead key, not "u".
      if (e.key === 'Escape' && keys.current.running) {
        e.preventDefault();
        keys.current.stop();
      } else if ((e.key === '?' && !typing) || (command && e.key === '/')) {
        e.preventDefault();
        setDialog('shortcuts');
      } else if (command && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setPane('threads');
        requestAnimationFrame(() => searchRef.current?.focus());
      } else if (e.altKey && !command && e.code === 'KeyN') {
        e.preventDefault();
        keys.current.navigate(undefined);
      } else if (e.altKey && !command && e.code === 'KeyU') {
        e.preventDefault();
        uploadRef.current?.click();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const exportAs = (kind: 'md' | 'html' | 'pdf' | 'ipynb' | 'zip') => {
    if (!session) return;
    const path =
      kind === 'ipynb'
        ? `/v1/threads/${session.id}/notebook`
        : kind === 'zip'
          ? `/v1/threads/${session.id}/export?format=zip`
          : `/v1/threads/${session.id}/report?format=${kind}`;
    const name =
      kind === 'ipynb' ? 'analysis.ipynb' : kind === 'zip' ? `${session.id}.zip` : `report.${kind}`;
    void download(path, name).catch((e: Error) => setNotice(t('export.failed', { message: e.message })));
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
            <summary class="button small">{t('export.title')}</summary>
            <div class="menu-items" role="menu">
              {(['md', 'html', 'pdf', 'ipynb', 'zip'] as const).map((kind) => (
                <button
                  type="button"
                  role="menuitem"
                  key={kind}
                  data-export={kind}
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
            version={listVersion + (session?.thread.updated_at ?? 0)}
            onOpen={navigate}
            onRenamed={(thread) => thread.id === session?.id && session.setThread(thread)}
            onDelete={(thread) =>
              setConfirm({
                message: t('threads.deleteConfirm', { title: thread.title || t('threads.untitled') }),
                action: () =>
                  void api(`/v1/threads/${thread.id}`, { method: 'DELETE' }).then(() => {
                    setListVersion((v) => v + 1);
                    if (thread.id === threadId) navigate(undefined);
                  }, report),
              })
            }
            searchRef={searchRef}
          />
          <WorkspacePanel
            files={files}
            generated={generated}
            uploads={uploads}
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
                  void api(fileUrl(session.id, path), { method: 'DELETE' }).then(
                    () => session.refreshFiles(),
                    report,
                  ),
              })
            }
            uploadRef={uploadRef}
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
            />
          )}
          <RunningIndicator session={session} />
          {notice && (
            <div class="toast" role="alert">
              <span>{notice}</span>
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
      {keyPrompt && (
        <KeyDialog
          invalid={keyPrompt.invalid}
          onSubmit={(key) => {
            keyPrompt.resolve(key);
            setKeyPromptState(undefined);
            void api<List<Model>>('/v1/models').then(
              (list) => setModels(list.data),
              () => {},
            );
            setListVersion((v) => v + 1);
          }}
        />
      )}
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
