import { AnalystError } from '../../errors/index.ts';

/** Chromium was there but did not produce a PDF (it crashed, failed or ran past its time). */
export class PdfRenderError extends AnalystError {
  readonly code = 'pdf_render_failed';
  readonly status = 500;
}
