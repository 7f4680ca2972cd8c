import { AnalystError } from '../../errors/index.ts';

/** A report could not be made within its bounds (memory, time). */
export class ReportRenderError extends AnalystError {
  readonly code = 'report_render_failed';
  readonly status = 500;
}
