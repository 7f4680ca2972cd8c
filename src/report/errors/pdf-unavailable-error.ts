import { AnalystError } from '../../errors/index.ts';

/** No Chromium to print with; the message says where it looked and how to install it. */
export class PdfUnavailableError extends AnalystError {
  readonly code = 'pdf_unavailable';
  readonly status = 501;
}
