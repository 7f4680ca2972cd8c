import { decodableRaster } from './image-check.ts';
import { type RasterMime, readArtifactSafely } from './images.ts';
import type { ReadArtifact } from './record.ts';

/** What a report does with one image: embed it, link the file, or say it is gone. */
export type ImageDecision =
  | { kind: 'image'; bytes: Buffer; mime: RasterMime }
  | { kind: 'link'; why: 'too-large' | 'not-an-image' }
  | { kind: 'missing' };

/** Default bytes of images one document embeds; ANALYST_REPORT_IMAGE_BYTES sets the server's. */
export const DEFAULT_REPORT_IMAGE_BYTES = 20 * 1024 * 1024;
const PER_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * The image bytes one document may embed, spent in the order images appear. Sizes count as
 * the reader sees them (a sparse file counts its full length) and each image must decode;
 * what does not fit or does not decode is linked instead, so one thread's artifacts cannot
 * make a report that exhausts the server.
 */
export class ImageBudget {
  private remaining: number;

  constructor(totalBytes = DEFAULT_REPORT_IMAGE_BYTES) {
    this.remaining = Math.max(0, totalBytes);
  }

  async take(read: ReadArtifact, path: string): Promise<ImageDecision> {
    const bytes = await readArtifactSafely(read, path, Math.min(PER_IMAGE_BYTES, this.remaining));
    if (bytes === undefined) return { kind: 'missing' };
    if (bytes === 'too-large') return { kind: 'link', why: 'too-large' };
    const mime = decodableRaster(bytes);
    if (!mime) return { kind: 'link', why: 'not-an-image' };
    this.remaining -= bytes.length;
    return { kind: 'image', bytes, mime };
  }
}
