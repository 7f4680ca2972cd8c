import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  InvalidInputError,
  isAnalystError,
  NotFoundError,
  PayloadTooLargeError,
} from '../../errors/index.ts';
import { newId } from '../../ids/api-ids.ts';
import { formatBytes } from '../../sandbox/exec-result.ts';
import type { FileRecord } from '../../store/store.ts';
import { safeFilename } from '../../threads/safe-filename.ts';
import type { AppDeps } from '../deps.ts';
import type { StoredBytesHold } from '../limits/stored-bytes.ts';
import type { FileObject } from '../wire/objects.ts';
import { listOf, pageOf } from './pagination.ts';

export function fileObject(file: FileRecord): FileObject {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: Math.floor(file.created_at / 1000),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
}

/** Reads a multipart upload's one `file` part and its fields; the part is streamed, not buffered. */
export async function uploadedFile(
  request: FastifyRequest,
): Promise<{ part: MultipartFile; fields: Record<string, string> }> {
  if (!request.isMultipart()) {
    throw new InvalidInputError('upload with multipart/form-data and a "file" field', { param: 'file' });
  }
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== 'file') {
        throw new InvalidInputError(`unexpected file field "${part.fieldname}": use "file"`, {
          param: 'file',
        });
      }
      // Fields sent before the file are in `part.fields`; the file is consumed by the caller.
      const fields: Record<string, string> = {};
      for (const [name, value] of Object.entries(part.fields)) {
        const field = Array.isArray(value) ? value[0] : value;
        if (field && field.type === 'field' && typeof field.value === 'string') fields[name] = field.value;
      }
      return { part, fields };
    }
  } catch (error) {
    throw asUploadError(error);
  }
  throw new InvalidInputError('the upload has no "file" field', { param: 'file' });
}

/**
 * Streams an upload's bytes into file storage under `id`. Each chunk is held against the
 * owner's stored-bytes quota before it is written; the hold is returned, to be released
 * once the store counts the file (`hold.release(bytes)`) or the upload failed
 * (`hold.release(0)`: done here for failures of the save itself). A cut-off or malformed
 * body is a 400, a file over ANALYST_MAX_UPLOAD_BYTES a 413, one over the quota a 429;
 * nothing of a refused upload is kept.
 */
export async function saveUpload(
  deps: AppDeps,
  id: string,
  part: MultipartFile,
  request: FastifyRequest,
): Promise<{ bytes: number; sha256: string; hold: StoredBytesHold }> {
  const { maxUploadBytes } = deps.config;
  const declared = Number(request.headers['content-length']);
  // The declared body (the file and its multipart framing) is held before anything is read:
  // uploads at once cannot each see the same room. A body without a length grows its hold.
  const hold = await deps.limits.holdStoredBytes(
    request.owner,
    Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, maxUploadBytes) : 1,
  );
  try {
    const saved = await deps.files.save(id, part.file, {
      maxBytes: maxUploadBytes,
      beforeWrite: (total) => {
        if (hold.growTo(total)) return;
        // Given back at once, so that of uploads racing for the last room one goes on.
        hold.release(0);
        throw deps.limits.storedBytesError();
      },
      truncated: () => part.file.truncated,
    });
    return { ...saved, hold };
  } catch (error) {
    hold.release(0);
    if (error instanceof PayloadTooLargeError) throw uploadTooLarge(maxUploadBytes);
    throw asUploadError(error);
  }
}

/** The 413 of a file over the upload limit, naming the limit and how to raise it. */
export function uploadTooLarge(maxUploadBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `the file is larger than the upload limit of ${formatBytes(maxUploadBytes)} (${maxUploadBytes} bytes, ANALYST_MAX_UPLOAD_BYTES)`,
    { param: 'file' },
  );
}

/**
 * The multipart parser fails with plain errors when a body is malformed or cut off: those
 * are the client's (400). Our own errors, HTTP-status errors and I/O errors pass through.
 */
function asUploadError(error: unknown): unknown {
  if (isAnalystError(error)) return error;
  const { statusCode, code, message } = error as { statusCode?: number; code?: string; message?: string };
  if (statusCode !== undefined || (typeof code === 'string' && /^E[A-Z]+$/.test(code))) return error;
  return new InvalidInputError(`the multipart body is malformed or cut off: ${message ?? 'unreadable'}`, {
    param: 'file',
  });
}

export function registerFileRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post('/v1/files', async (request) => {
    const { part, fields } = await uploadedFile(request);
    const filename = safeFilename(part.filename);
    const purpose = fields.purpose?.trim() || 'file-extract';
    if (purpose.length > 64) throw new InvalidInputError('purpose is too long', { param: 'purpose' });
    const id = newId('file');
    const { bytes, sha256, hold } = await saveUpload(deps, id, part, request);
    let record: FileRecord;
    try {
      record = await deps.store.createFile({ id, owner: request.owner, filename, purpose, bytes, sha256 });
    } catch (error) {
      hold.release(0);
      await deps.files.delete(id);
      throw error;
    }
    hold.release(bytes);
    return fileObject(record);
  });

  app.get('/v1/files', async (request) => {
    const page = pageOf(request.query);
    const purpose = (request.query as { purpose?: string }).purpose;
    const records = await deps.store.listFiles(request.owner, { ...page, limit: page.limit + 1, purpose });
    return listOf(records, page.limit, fileObject);
  });

  app.get<{ Params: { id: string } }>('/v1/files/:id', async (request) =>
    fileObject(await deps.threads.file(request.owner, request.params.id, 'file_id')),
  );

  app.get<{ Params: { id: string } }>('/v1/files/:id/content', async (request, reply) => {
    const file = await deps.threads.file(request.owner, request.params.id, 'file_id');
    if (!(await deps.files.exists(file.id)))
      throw new NotFoundError(`the content of ${file.id} is missing`, { param: 'file_id' });
    return reply
      .type('application/octet-stream')
      .header('content-disposition', contentDisposition(file.filename))
      .send(deps.files.open(file.id));
  });

  app.delete<{ Params: { id: string } }>('/v1/files/:id', async (request) => {
    const file = await deps.threads.file(request.owner, request.params.id, 'file_id');
    await deps.store.deleteFile(request.owner, file.id);
    await deps.files.delete(file.id);
    return { id: file.id, object: 'file', deleted: true };
  });
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
