import { constants } from 'node:fs';
import { lstat, mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  notebookJson,
  prefixedReader,
  type ReadArtifact,
  type RunRecord,
  renderHtmlReport,
  renderMarkdownReport,
  renderNotebook,
  renderPdf,
  withArtifactPrefix,
} from '../../report/index.ts';
import { readWorkspaceFile } from '../../sandbox/workspace/confined.ts';
import { giveToSandbox } from '../../sandbox/workspace/give-to-sandbox.ts';
import type { Store, ThreadRecord } from '../../store/store.ts';
import type { FileLink } from '../chat/completion.ts';

export type ReportFormat = 'md' | 'html' | 'pdf';

const REPORT_DIR = 'reports';

/** Reports and notebooks of a thread, rendered from its stored events (SPEC §7). */
export class ReportService {
  constructor(private readonly store: Store) {}

  /** The thread's record; artifacts named `linkPrefix + path` (see withArtifactPrefix). */
  async record(thread: ThreadRecord, linkPrefix = ''): Promise<RunRecord> {
    const messages = await this.store.listMessages(thread.id);
    const runs = await this.store.listRuns(thread.id);
    const question = messages.find((m) => m.role === 'user')?.content ?? '';
    return {
      title: thread.title ?? 'Analysis',
      question,
      model: runs[runs.length - 1]?.model ?? 'unknown',
      createdAt: new Date(thread.created_at).toISOString(),
      events: withArtifactPrefix(await this.store.threadEvents(thread.id), linkPrefix),
    };
  }

  reader(thread: ThreadRecord, linkPrefix = ''): ReadArtifact {
    return prefixedReader(linkPrefix, (path) =>
      readWorkspaceFile(thread.workspace_dir, path).catch(() => undefined),
    );
  }

  /**
   * The report; `linkPrefix` is what makes its artifact links resolve where it is read
   * (a download URL base, or `../` for the copy in the workspace's reports/ folder).
   */
  async report(thread: ThreadRecord, format: ReportFormat, linkPrefix = ''): Promise<Buffer> {
    const record = await this.record(thread, linkPrefix);
    const read = this.reader(thread, linkPrefix);
    if (format === 'md') return Buffer.from(await renderMarkdownReport(record, read));
    const html = await renderHtmlReport(record, read);
    return format === 'html' ? Buffer.from(html) : renderPdf(html);
  }

  async notebook(thread: ThreadRecord): Promise<Buffer> {
    return Buffer.from(notebookJson(await renderNotebook(await this.record(thread), this.reader(thread))));
  }

  /**
   * Writes the thread's report and notebook into its workspace (`reports/`), never through
   * a symlink a cell may have put there.
   */
  async write(thread: ThreadRecord): Promise<void> {
    const dir = join(thread.workspace_dir, REPORT_DIR);
    const info = await lstat(dir).catch(() => undefined);
    if (info && !info.isDirectory()) await unlink(dir);
    if (!info?.isDirectory()) {
      await mkdir(dir);
      await giveToSandbox(dir);
    }
    // One record for all three: the thread's events are read once. Links go up from reports/.
    const record = await this.record(thread, '../');
    const read = this.reader(thread, '../');
    const html = await renderHtmlReport(record, read);
    await writeNoFollow(join(dir, 'report.md'), Buffer.from(await renderMarkdownReport(record, read)));
    await writeNoFollow(join(dir, 'report.html'), Buffer.from(html));
    await writeNoFollow(
      join(dir, 'analysis.ipynb'),
      Buffer.from(notebookJson(await renderNotebook(record, read))),
    );
  }

  /** Links to the thread's report and notebook, as listed with a chat's generated files. */
  links(threadId: string, base: string): FileLink[] {
    const root = `${base}/v1/threads/${threadId}`;
    return [
      { name: 'report.md', url: `${root}/report?format=md` },
      { name: 'report.html', url: `${root}/report?format=html` },
      { name: 'analysis.ipynb', url: `${root}/notebook` },
    ];
  }
}

async function writeNoFollow(path: string, data: Buffer): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, flags, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    await unlink(path); // a symlink where our file goes: remove the link, not its target
    handle = await open(path, flags, 0o644);
  }
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
  await giveToSandbox(path);
}
