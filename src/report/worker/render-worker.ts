import { parentPort, workerData } from 'node:worker_threads';
import { type DocumentFormat, renderDocuments } from '../documents.ts';
import { ArtifactTooLargeError } from '../errors/artifact-too-large-error.ts';
import type { RunRecord } from '../record.ts';
import { prefixedReader, withArtifactPrefix } from '../relocate.ts';

/** What the main thread sends: the record, and the artifact bytes it read (within the budget). */
export interface RenderJob {
  record: RunRecord;
  linkPrefix: string;
  /** By workspace path: the bytes read, or a size for files that were too large to read. */
  files: Record<string, Uint8Array | number>;
  formats: DocumentFormat[];
  imageBytes: number;
}

const job = workerData as RenderJob;
const read = prefixedReader(job.linkPrefix, async (path, maxBytes = Number.POSITIVE_INFINITY) => {
  const file = job.files[path];
  if (file === undefined) return undefined;
  const size = typeof file === 'number' ? file : file.byteLength;
  if (size > maxBytes || typeof file === 'number')
    throw new ArtifactTooLargeError(`${path} is ${size} bytes`);
  return Buffer.from(file.buffer, file.byteOffset, file.byteLength);
});
const record = { ...job.record, events: withArtifactPrefix(job.record.events, job.linkPrefix) };
parentPort?.postMessage(await renderDocuments(record, read, job.formats, { imageBytes: job.imageBytes }));
