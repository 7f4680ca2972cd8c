import { chartSpecKind } from '../contract/chart-spec.ts';
import type { Artifact } from '../sandbox/sandbox.ts';
import { ArtifactTooLargeError } from './errors/artifact-too-large-error.ts';
import type { ReadArtifact } from './record.ts';

/** The words a report shows for an interactive chart (docs/spec.md#charts) it has no image of. */
export const INTERACTIVE_CHART_NOTE = 'interactive chart: open it in the studio';

/** Raster image types that reports embed and notebooks show. */
export type RasterMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/**
 * How an artifact is shown as a picture, judged from its recorded type or its name: a chart
 * spec (docs/spec.md#charts) is a picture once drawn (reports get it as a PNG, see report-service.ts).
 */
export function imageKindOf(artifact: Artifact): 'raster' | 'svg' | 'chart' | undefined {
  if (chartSpecKind(artifact.path)) return 'chart';
  const mime = artifact.mime.toLowerCase().split(';')[0]!.trim();
  const extension = /\.([a-z0-9]+)$/i.exec(artifact.path)?.[1]?.toLowerCase();
  if (mime === 'image/svg+xml' || extension === 'svg') return 'svg';
  if (['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(mime)) return 'raster';
  if (extension && ['png', 'jpg', 'jpeg', 'gif', 'webp'].includes(extension)) return 'raster';
  return undefined;
}

/**
 * The real type of raster image bytes, from their signature. A cell can write anything
 * under a `.png` name, so what gets embedded is decided by the bytes, not the name.
 */
export function sniffRaster(bytes: Buffer): RasterMime | undefined {
  const starts = (signature: number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

/**
 * Reads an artifact of at most `maxBytes`; `too-large` when it is bigger (not read), and a
 * missing file or a refused read (say, a symlink) both give `undefined`.
 */
export async function readArtifactSafely(
  read: ReadArtifact,
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Buffer | 'too-large' | undefined> {
  try {
    const bytes = await read(path, maxBytes);
    return bytes && bytes.length > maxBytes ? 'too-large' : bytes;
  } catch (error) {
    if (error instanceof ArtifactTooLargeError) return 'too-large';
    // The workspace refuses symlinks and paths that leave it; a report shows such a file
    // as unavailable instead of failing as a whole.
    return undefined;
  }
}

/** Whether the artifact is still there (nothing of it is read). */
export async function artifactExists(read: ReadArtifact, path: string): Promise<boolean> {
  return (await readArtifactSafely(read, path, 0)) !== undefined;
}

/** The last component of a workspace path. */
export function baseName(path: string): string {
  return path.split('/').pop() || path;
}
