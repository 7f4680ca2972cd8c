import { AnalystError } from '../../errors/index.ts';

/**
 * A chart spec (docs/spec.md#charts) could not be drawn as an image for a report: no Chromium,
 * no chart library beside the web UI, a spec its library refuses, or no image in time. Reports
 * then name the chart's file instead of failing.
 */
export class ChartImageError extends AnalystError {
  readonly code = 'chart_image_failed';
  readonly status = 500;
}
