import { useCallback, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';
import { useLanguage } from '../lib/hooks.ts';
import { threadConnectionIds, useDataSources } from '../state/use-data-sources.ts';
import { useInspector } from '../state/use-inspector.ts';
import { useKeyPrompt } from '../state/use-key-prompt.ts';
import { useModels } from '../state/use-models.ts';
import { useNotice } from '../state/use-notice.ts';
import { useThreadRoute } from '../state/use-route.ts';
import { useShortcuts } from '../state/use-shortcuts.ts';
import { type Confirmation, useThreadActions } from '../state/use-thread-actions.ts';
import { useThreadSession } from '../state/use-thread-session.ts';
import { useUploads } from '../state/use-uploads.ts';
import { Chat, RunningIndicator } from './Chat.tsx';
import { Composer } from './Composer.tsx';
import { DataSources } from './DataSources.tsx';
import { ConfirmDialog, KeyDialog, SettingsDialog, ShortcutsDialog } from './Dialogs.tsx';
import { ImageViewer } from './ImageViewer.tsx';
import { Inspector } from './Inspector.tsx';
import { ThreadList } from './ThreadList.tsx';
import { Toast } from './Toast.tsx';
import { TopBar } from './TopBar.tsx';
import { WorkspacePanel } from './WorkspacePanel.tsx';

type Pane = 'threads' | 'chat' | 'inspector';

/**
 * The studio: threads and files (left), chat (centre), inspector (right); tabs on a narrow screen.
 * Layout and the wiring of the hooks, one per concern (state/use-*.ts); what the studio does to a
 * thread is state/use-thread-actions.ts, over api/client.ts.
 */
export function App() {
  useLanguage();
  const route = useThreadRoute();
  const threadId = route.threadId;
  const { notice, showError, showInfo, dismiss } = useNotice();
  const opened = useThreadSession(threadId, (error) =>
    showError(t('error.generic', { message: error.message })),
  );
  const { session, missing } = opened;
  const models = useModels();
  const keyPrompt = useKeyPrompt();
  const uploads = useUploads(showInfo);
  const [confirm, setConfirm] = useState<Confirmation>();
  const [dialog, setDialog] = useState<'settings' | 'shortcuts'>();
  const [pane, setPane] = useState<Pane>('chat');
  const inspector = useInspector(threadId, () => setPane('inspector'));
  const searchRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<HTMLInputElement>(null);

  const navigate = useCallback(
    (id: string | undefined) => {
      route.navigate(id);
      setPane('chat');
    },
    [route.navigate],
  );

  const actions = useThreadActions({
    threadId,
    opened,
    navigate: route.navigate,
    leave: () => navigate(undefined),
    startUploads: uploads.start,
    showError,
  });
  const sources = useDataSources({ ensureThread: actions.ensureThread, onError: actions.report });

  const running = !!session?.active;

  useShortcuts({
    running,
    stop: actions.stop,
    showShortcuts: () => setDialog('shortcuts'),
    search: () => {
      setPane('threads');
      requestAnimationFrame(() => searchRef.current?.focus());
    },
    newThread: () => navigate(undefined),
    upload: () => uploadRef.current?.click(),
  });

  const generated = session?.generated() ?? new Set<string>();
  const files = session?.files ?? [];
  const title = session ? session.thread.title || t('threads.untitled') : '';

  return (
    <div class={`app pane-${pane}`}>
      <TopBar
        title={title}
        onExport={session && actions.exportAs}
        exporting={actions.exporting}
        onHome={() => navigate(undefined)}
        onShortcuts={() => setDialog('shortcuts')}
        onSettings={() => setDialog('settings')}
      />

      <div class="columns">
        <div class="left">
          <ThreadList
            currentId={threadId}
            onOpen={navigate}
            onRenamed={(thread) => thread.id === session?.id && session.setThread(thread)}
            onDelete={(thread) => setConfirm(actions.deleteThread(thread))}
            searchRef={searchRef}
          />
          <WorkspacePanel
            files={files}
            generated={generated}
            uploads={uploads.uploads}
            onCancelUpload={uploads.cancel}
            selected={inspector.view.path}
            onUpload={(list) => void actions.upload(list)}
            onOpen={inspector.openFile}
            onDownload={actions.downloadFile}
            onDelete={(path) => {
              const asked = actions.deleteFile(path);
              if (asked) setConfirm(asked);
            }}
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
              selectedCell={inspector.view.tab === 'code' ? inspector.view.cell?.cellId : undefined}
              onInspectCell={inspector.inspectCell}
              onOpenFile={inspector.openFile}
              onAsk={(question) => void actions.send(question)}
              onRevise={actions.revise}
            />
          )}
          <RunningIndicator session={session} />
          {notice && <Toast notice={notice} onClose={dismiss} />}
          <Composer
            files={files}
            generated={generated}
            running={running}
            disabled={missing}
            onSend={actions.send}
            onStop={actions.stop}
            onOpenFile={inspector.openFile}
          />
        </main>

        <Inspector
          threadId={session?.id}
          tab={inspector.view.tab}
          onTab={inspector.setTab}
          path={inspector.view.path}
          fileVersion={String(files.find((f) => f.path === inspector.view.path)?.modified_at ?? '')}
          cell={inspector.view.cell}
          running={running}
          onRerun={async (code) => {
            if (await actions.rerun(code)) setPane('chat');
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
          model={actions.model}
          settings={actions.settings}
          onChange={actions.changeSettings}
          onClose={() => setDialog(undefined)}
        />
      )}
    </div>
  );
}
