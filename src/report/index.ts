/** Reports and notebooks made from a thread's events (docs/spec.md#reports). */

export { type DocumentFormat, type RenderedDocuments, renderDocuments } from './documents.ts';
export { ArtifactTooLargeError } from './errors/artifact-too-large-error.ts';
export { PdfRenderError } from './errors/pdf-render-error.ts';
export { PdfUnavailableError } from './errors/pdf-unavailable-error.ts';
export { ReportRenderError } from './errors/report-render-error.ts';
export { renderHtmlReport } from './html-report.ts';
export { renderMarkdownReport } from './markdown-report.ts';
export { notebookJson, renderNotebook } from './notebook.ts';
export type {
  CodeCell,
  DisplayDataOutput,
  ErrorOutput,
  MarkdownCell,
  NotebookCell,
  NotebookOutput,
  NotebookV4,
  StreamOutput,
} from './notebook-format.ts';
export { DEFAULT_CHROMIUM_PATH, type PdfOptions, renderPdf } from './pdf.ts';
export type { ReadArtifact, ThreadHistory } from './record.ts';
export { prefixedReader, withArtifactPrefix } from './relocate.ts';
