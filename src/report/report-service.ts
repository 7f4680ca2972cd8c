import { artifactsOf } from '../agent/events.ts';
import { CHART_SPEC_MAX_BYTES, chartSpecKind } from '../contract/chart-spec.ts';
import type { FileLink } from '../contract/file-link.ts';
import { abortError } from '../errors/abort.ts';
import type { Store, ThreadRecord } from '../store/store.ts';
import { FairPool } from '../workers/fair-pool.ts';
import type { Workspace, WorkspaceFile } from '../workspace/workspace.ts';
import { ChartImages, type ChartImagesOptions } from './chart-images.ts';
import { DEFAULT_REPORT_IMAGE_BYTES } from './image-budget.ts';
import { imageKindOf } from './images.ts';
import { type RenderedDocuments, renderPdf, type ThreadHistory } from './index.ts';
import type { PdfOptions } from './pdf.ts';
import { renderInWorker } from './worker/render-in-worker.ts';

export type ReportFormat = 'md' | 'html' | 'pdf';

const REPORT_DIR = 'reports';
const PER_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Whether the asker still waits for a document. Jobs take turns by the thread's owner (its
 * API key): each key's queue is served in turn with the others'.
 */
export interface RenderRequest {
  /** Aborting (the client hung up) drops the job from its queue or stops its work, Chromium too. */
  abortSignal?: AbortSignal;
}

export interface ReportServiceOptions {
  /** The images embedded in one document, in bytes. Default DEFAULT_REPORT_IMAGE_BYTES. */
  imageBytes?: number;
  /** Documents (reports, notebooks, PDFs) made at once; the rest wait, fairly by key. Default 2. */
  renderSlots?: number;
  /** How PDFs are printed (Chromium path, time). */
  pdf?: Omit<PdfOptions, 'abortSignal'>;
  /**
   * How interactive charts (docs/spec.md#charts) are drawn as images for reports (Chromium path,
   * time); the Chromium of `pdf` by default. `false`: never drawn, reports name their files.
   */
  charts?: ChartImagesOptions | false;
}

/**
 * Reports and notebooks of a thread, rendered from its stored events (docs/spec.md#reports), within
 * bounds: the images a document embeds are read through the workspace up to a total of
 * `imageBytes` (apparent sizes; what does not fit is linked), and rendering runs in a
 * worker thread with its own memory and time limits. A thread whose documents cannot be
 * made within them gets documents that link every file instead.
 */
export class ReportService {
  /** Every document is made inside a slot of this pool: images read, rendered, printed. */
  readonly pool: FairPool;

  private readonly charts: ChartImages | undefined;

  constructor(
    private readonly store: Store,
    private readonly options: ReportServiceOptions = {},
  ) {
    this.pool = new FairPool(options.renderSlots ?? 2);
    this.charts =
      options.charts === false
        ? undefined
        : new ChartImages({ chromiumPath: options.pdf?.chromiumPath, ...options.charts });
  }

  private get imageBytes(): number {
    return this.options.imageBytes ?? DEFAULT_REPORT_IMAGE_BYTES;
  }

  /** The thread's record: its title, first question, model and every event. */
  async record(thread: ThreadRecord): Promise<ThreadHistory> {
    const messages = await this.store.listMessages(thread.id);
    const runs = await this.store.listRuns(thread.id);
    const question = messages.find((m) => m.role === 'user')?.content ?? '';
    return {
      title: thread.title ?? 'Analysis',
      question,
      model: runs.findLast((r) => r.protocol !== 'cell')?.model ?? 'unknown',
      createdAt: new Date(thread.created_at).toISOString(),
      events: await this.store.threadEvents(thread.id),
      threadId: thread.id,
    };
  }

  /**
   * Markdown, HTML and/or notebook; `linkPrefix` is what makes artifact links resolve where
   * the document is read (a download URL base, or `../` for the copies in `reports/`).
   */
  documents(
    thread: ThreadRecord,
    workspace: Workspace,
    formats: Array<'md' | 'html' | 'ipynb'>,
    linkPrefix = '',
    options: { embedMarkdownImages?: boolean } = {},
    request: RenderRequest = {},
  ): Promise<RenderedDocuments> {
    return this.pool.run(thread.owner, request.abortSignal, () =>
      this.render(thread, workspace, formats, linkPrefix, options, request.abortSignal),
    );
  }

  /** Inside a slot: images are read only now, so a waiting job holds no bytes. */
  private async render(
    thread: ThreadRecord,
    workspace: Workspace,
    formats: Array<'md' | 'html' | 'ipynb'>,
    linkPrefix: string,
    options: { embedMarkdownImages?: boolean },
    signal: AbortSignal | undefined,
  ): Promise<RenderedDocuments> {
    const record = await this.record(thread);
    stopIfAborted(signal);
    const files = await this.imageFiles(record, workspace, signal);
    stopIfAborted(signal);
    const embedMarkdownImages = options.embedMarkdownImages ?? false;
    try {
      return await renderInWorker({
        record,
        linkPrefix,
        files,
        formats,
        imageBytes: this.imageBytes,
        embedMarkdownImages,
      });
    } catch (error) {
      // Without embedded images the same render would fail the same way: it is not done twice.
      const embedded = Object.values(files).some((f) => typeof f !== 'number');
      if (!embedded || signal?.aborted) throw error;
      // Over its bounds: the same documents with every image linked, not embedded.
      const sizes = Object.fromEntries(
        Object.entries(files).map(([path, f]) => [path, typeof f === 'number' ? f : f.byteLength]),
      );
      return renderInWorker({
        record,
        linkPrefix,
        files: sizes,
        formats,
        imageBytes: 0,
        embedMarkdownImages,
      });
    }
  }

  /** One report; a PDF is printed in the same slot, so pooled Chromiums are bounded too. */
  report(
    thread: ThreadRecord,
    workspace: Workspace,
    format: ReportFormat,
    linkPrefix = '',
    request: RenderRequest = {},
  ): Promise<Buffer> {
    const signal = request.abortSignal;
    return this.pool.run(thread.owner, signal, async () => {
      const wanted = format === 'md' ? 'md' : 'html';
      // A report downloaded alone carries its charts: links to the server break once saved.
      const documents = await this.render(
        thread,
        workspace,
        [wanted],
        linkPrefix,
        { embedMarkdownImages: true },
        signal,
      );
      const text = documents[wanted] ?? '';
      stopIfAborted(signal);
      return format === 'pdf'
        ? renderPdf(text, { ...this.options.pdf, abortSignal: signal })
        : Buffer.from(text);
    });
  }

  async notebook(thread: ThreadRecord, workspace: Workspace, request: RenderRequest = {}): Promise<Buffer> {
    return Buffer.from((await this.documents(thread, workspace, ['ipynb'], '', {}, request)).ipynb ?? '');
  }

  /** Writes the thread's report and notebook into its workspace's `reports/` folder. */
  async write(thread: ThreadRecord, workspace: Workspace): Promise<void> {
    // Links go up from reports/ to the files beside it.
    const documents = await this.documents(thread, workspace, ['md', 'html', 'ipynb'], '../');
    await workspace.write(`${REPORT_DIR}/report.md`, Buffer.from(documents.md ?? ''));
    await workspace.write(`${REPORT_DIR}/report.html`, Buffer.from(documents.html ?? ''));
    await workspace.write(`${REPORT_DIR}/analysis.ipynb`, Buffer.from(documents.ipynb ?? ''));
  }

  /** After a run (the run service's `AfterRun`): the report and notebook are written anew. */
  async afterRun(thread: ThreadRecord, workspace: Workspace): Promise<void> {
    await this.write(thread, workspace);
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

  /**
   * The image artifacts a document may embed, read in the order they were made until the
   * budget is spent; larger or later ones are given by size only (they will be linked).
   */
  private async imageFiles(
    record: ThreadHistory,
    workspace: Workspace,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, Uint8Array | number>> {
    const files: Record<string, Uint8Array | number> = {};
    let left = this.imageBytes;
    for (const artifact of artifactsOf(record.events)) {
      stopIfAborted(signal);
      const kind = imageKindOf(artifact);
      if (!kind || artifact.path in files) continue;
      const file = await workspace.open(artifact.path).catch(() => undefined);
      if (!file) continue;
      if (kind === 'chart') {
        const png = await this.chartImage(artifact.path, file, left, signal);
        files[artifact.path] = png ?? file.bytes;
        if (png) left -= png.length;
        continue;
      }
      if (kind === 'svg' || file.bytes > Math.min(PER_IMAGE_BYTES, left)) {
        files[artifact.path] = file.bytes;
        await file.close();
        continue;
      }
      const bytes = await file.read(file.bytes).catch(() => undefined);
      if (!bytes) continue;
      files[artifact.path] = bytes;
      left -= bytes.length;
    }
    return files;
  }

  /**
   * A chart spec drawn as a PNG (in this report's slot, so drawing Chromiums are bounded like
   * printing ones), or `undefined`: drawing off or failed, or no budget left. Closes `file`.
   */
  private async chartImage(
    path: string,
    file: WorkspaceFile,
    left: number,
    signal: AbortSignal | undefined,
  ): Promise<Buffer | undefined> {
    const kind = chartSpecKind(path);
    try {
      if (!this.charts || !kind || file.bytes > CHART_SPEC_MAX_BYTES || left <= 0) return undefined;
      const spec = await file.read(file.bytes).catch(() => undefined);
      if (!spec) return undefined;
      const png = await this.charts.draw(kind, spec.toString('utf8'), signal);
      return png instanceof Buffer && png.length <= Math.min(PER_IMAGE_BYTES, left) ? png : undefined;
    } finally {
      await file.close();
    }
  }
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError('the report was cancelled: its client left');
}
