import { useState } from 'preact/hooks';
import { type ApiError, api, download } from '../api/client.ts';
import { type ExportKind, exportTarget } from '../api/exports.ts';
import { type Thread, type ThreadSettings, threadModel, threadSettings } from '../api/types.ts';
import { t } from '../i18n/i18n.ts';
import { fileUrl } from '../lib/files.ts';
import { announce } from './changes.ts';
import { ThreadSession } from './thread-session.ts';

/** A question the confirm dialog asks, and what a yes does. */
export interface Confirmation {
  message: string;
  action(): void;
}

/** What the studio does to its open thread (or, with none open, to a new one it makes first). */
export interface ThreadActions {
  /** The model and settings the next run uses: the open thread's, or the draft's before one exists. */
  model: string | undefined;
  settings: ThreadSettings;
  /** The open thread, or a new one made with the draft's model and settings (and opened in place). */
  ensureThread(): Promise<ThreadSession>;
  /** Shows a failed call in the toast; a 409 (a run this page has not seen) is brought in too. */
  report(error: unknown): void;
  /** Asks `question` (in a new thread when none is open); true once the run started. */
  send(question: string): Promise<boolean>;
  /** Asks a run's question again, or `question` in its place; true once the run started. */
  revise(runId: string, question: string | undefined): Promise<boolean>;
  /** Runs a cell's code (edited in the inspector) again; true once the run started. */
  rerun(code: string): Promise<boolean>;
  stop(): void;
  /** Uploads files into the open thread (made first when none is open), then lists its files again. */
  upload(files: Array<{ file: File; folder: string }>): Promise<void>;
  /** New model and settings: the open thread's (saved at once), or the draft's. */
  changeSettings(model: string | undefined, settings: ThreadSettings): void;
  /** The export being made, one at a time. */
  exporting: ExportKind | undefined;
  exportAs(kind: ExportKind): void;
  downloadFile(path: string): void;
  deleteThread(thread: Thread): Confirmation;
  /** Undefined without an open thread. */
  deleteFile(path: string): Confirmation | undefined;
}

/**
 * The thread actions of the studio over the typed client, each reporting its failure through
 * `showError`. `navigate` opens a thread the page just made; `leave` goes to the new-thread page
 * when the thread the URL names is deleted.
 */
export function useThreadActions(options: {
  threadId: string | undefined;
  opened: { session?: ThreadSession; adopt(session: ThreadSession): void };
  navigate(id: string): void;
  leave(): void;
  startUploads(threadId: string, files: Array<{ file: File; folder: string }>): Promise<void>;
  showError(text: string): void;
}): ThreadActions {
  const { session } = options.opened;
  const { showError } = options;
  const [draft, setDraft] = useState<{ model?: string; settings: ThreadSettings }>({ settings: {} });
  // A PDF takes seconds to render: the export menu says what it is doing until the file arrives.
  const [exporting, setExporting] = useState<ExportKind>();

  const model = session ? threadModel(session.thread) : draft.model;
  const settings = (session ? threadSettings(session.thread) : draft.settings) ?? {};

  const ensureThread = async (): Promise<ThreadSession> => {
    if (session) return session;
    const thread = await api.createThread({
      metadata: { ...(draft.model ? { model: draft.model } : {}), settings: draft.settings },
    });
    const made = await ThreadSession.open(thread.id);
    options.opened.adopt(made);
    options.navigate(thread.id);
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

  return {
    model,
    settings,
    ensureThread,
    report,
    send: (question) =>
      startRun(async () => {
        const target = await ensureThread();
        await target.ask(question, model, settings);
        // The run's start gave the thread its title.
        void target.refreshThread().catch(() => {});
      }),
    revise: (runId, question) => startRun(async () => session?.revise(runId, question, model, settings)),
    rerun: async (code) => {
      try {
        await session?.rerun(code);
        return true;
      } catch (error) {
        report(error);
        return false;
      }
    },
    stop: () => void session?.stop().catch(report),
    upload: async (files) => {
      if (files.length === 0) return;
      let target: ThreadSession;
      try {
        target = await ensureThread();
      } catch (error) {
        return report(error);
      }
      await options.startUploads(target.id, files);
      await target.refreshFiles();
    },
    changeSettings: (nextModel, next) => {
      if (!session) return setDraft({ model: nextModel, settings: next });
      const metadata = { ...session.thread.metadata, model: nextModel, settings: next };
      session.setThread({ ...session.thread, metadata });
      void api.updateThread(session.id, { metadata }).then((thread) => session.setThread(thread), report);
    },
    exporting,
    exportAs: (kind) => {
      if (!session || exporting) return;
      const { path, fallbackName } = exportTarget(session.id, kind);
      setExporting(kind);
      void download(path, fallbackName)
        .catch((e: Error) => showError(t('export.failed', { message: e.message })))
        .finally(() => setExporting(undefined));
    },
    downloadFile: (path) => {
      if (session) void download(fileUrl(session.id, path), path.split('/').pop() ?? path).catch(report);
    },
    deleteThread: (thread) => ({
      message: t('threads.deleteConfirm', { title: thread.title || t('threads.untitled') }),
      action: () =>
        void api.deleteThread(thread.id).then(() => {
          announce('threads');
          if (thread.id === options.threadId) options.leave();
        }, report),
    }),
    deleteFile: (path) =>
      session && {
        message: t('files.deleteConfirm', { path }),
        action: () => void api.deleteFile(session.id, path).then(() => session.refreshFiles(), report),
      },
  };
}
