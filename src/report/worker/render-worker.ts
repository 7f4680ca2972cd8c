import { parentPort } from 'node:worker_threads';
import { type DocumentFormat, type RenderedDocuments, renderDocuments } from '../documents.ts';
import { ArtifactTooLargeError } from '../errors/artifact-too-large-error.ts';
import type { ThreadHistory } from '../record.ts';
import { prefixedReader, withArtifactPrefix } from '../relocate.ts';

/** What the main thread sends: the record, and the artifact bytes it read (within the budget). */
export interface RenderJob {
  record: ThreadHistory;
  linkPrefix: string;
  /** By workspace path: the bytes read, or a size for files that were too large to read. */
  files: Record<string, Uint8Array | number>;
  formats: DocumentFormat[];
  imageBytes: number;
  /** The Markdown report embeds its charts (a download that must stand alone). */
  embedMarkdownImages?: boolean;
}

export type ToRenderWorker = { id: number; job: RenderJob };
export type FromRenderWorker = { id: number; documents: RenderedDocuments } | { id: number; error: string };

/**
 * One job at a time, for as long as the worker lives: a worker is started once and serves
 * report after report (starting one loads its modules anew: docs/performance.md#render-workers).
 * A job leaves nothing behind it: everything it uses is local to `render`.
 */
async function render(job: RenderJob): Promise<RenderedDocuments> {
  const read = prefixedReader(job.linkPrefix, async (path, maxBytes = Number.POSITIVE_INFINITY) => {
    const file = job.files[path];
    if (file === undefined) return undefined;
    const size = typeof file === 'number' ? file : file.byteLength;
    if (size > maxBytes || typeof file === 'number')
      throw new ArtifactTooLargeError(`${path} is ${size} bytes`);
    return Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  });
  const record = { ...job.record, events: withArtifactPrefix(job.record.events, job.linkPrefix) };
  return renderDocuments(record, read, job.formats, {
    imageBytes: job.imageBytes,
    embedMarkdownImages: job.embedMarkdownImages ?? false,
  });
}

const port = parentPort;
port?.on('message', ({ id, job }: ToRenderWorker) => {
  render(job).then(
    (documents) => port.postMessage({ id, documents } satisfies FromRenderWorker),
    (error: unknown) =>
      port.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies FromRenderWorker),
  );
});
