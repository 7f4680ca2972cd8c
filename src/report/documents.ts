import { renderHtmlReport } from './html-report.ts';
import { renderMarkdownReport } from './markdown-report.ts';
import { notebookJson, renderNotebook } from './notebook.ts';
import type { ReadArtifact, ThreadHistory } from './record.ts';

export type DocumentFormat = 'md' | 'html' | 'ipynb';

export interface RenderedDocuments {
  md?: string;
  html?: string;
  ipynb?: string;
}

/** The thread's report (Markdown, HTML) and notebook, as asked, each embedding at most `imageBytes` of images. */
export async function renderDocuments(
  record: ThreadHistory,
  read: ReadArtifact,
  formats: readonly DocumentFormat[],
  options: {
    imageBytes?: number;
    /** The Markdown report embeds its charts (downloaded alone) instead of linking the files beside it. */
    embedMarkdownImages?: boolean;
  } = {},
): Promise<RenderedDocuments> {
  const out: RenderedDocuments = {};
  if (formats.includes('md')) {
    out.md = await renderMarkdownReport(record, read, {
      embedImages: options.embedMarkdownImages ?? false,
      ...(options.imageBytes === undefined ? {} : { imageBytes: options.imageBytes }),
    });
  }
  if (formats.includes('html')) out.html = await renderHtmlReport(record, read, options);
  if (formats.includes('ipynb')) out.ipynb = notebookJson(await renderNotebook(record, read, options));
  return out;
}
