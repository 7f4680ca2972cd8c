import { createHash } from 'node:crypto';
import type { ChartSpecKind } from '../contract/chart-spec.ts';
import { type ChartImageOptions, renderChartImage } from './chart-image.ts';
import { ChartImageError } from './errors/chart-image-error.ts';

export interface ChartImagesOptions extends Omit<ChartImageOptions, 'abortSignal'> {
  /** PNGs kept by their spec's hash, so a report written again after each run draws no chart twice. Default 32 MiB. */
  cacheBytes?: number;
}

/**
 * Chart specs drawn as PNGs for reports (docs/spec.md#reports), each drawn once: a thread's report
 * is made anew after every run, and drawing one chart takes Chromium a second or more.
 */
export class ChartImages {
  private readonly cache = new Map<string, Buffer>();
  private cachedBytes = 0;

  constructor(private readonly options: ChartImagesOptions = {}) {}

  /** The chart's PNG, or the reason there is none (the report then names the chart's file). */
  async draw(
    kind: ChartSpecKind,
    specText: string,
    abortSignal?: AbortSignal,
  ): Promise<Buffer | ChartImageError> {
    const key = createHash('sha256').update(kind).update('\0').update(specText).digest('hex');
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    try {
      const png = await renderChartImage(kind, specText, { ...this.options, abortSignal });
      this.remember(key, png);
      return png;
    } catch (error) {
      if (error instanceof ChartImageError) return error;
      throw error;
    }
  }

  private remember(key: string, png: Buffer): void {
    const limit = this.options.cacheBytes ?? 32 * 1024 * 1024;
    if (png.length > limit) return;
    this.cache.set(key, png);
    this.cachedBytes += png.length;
    for (const [oldest, bytes] of this.cache) {
      if (this.cachedBytes <= limit) break;
      this.cache.delete(oldest);
      this.cachedBytes -= bytes.length;
    }
  }
}
