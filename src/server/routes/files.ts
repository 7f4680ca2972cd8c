import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  InvalidInputError,
  isAnalystError,
  NotFoundError,
  PayloadTooLargeError,
} from '../../errors/index.ts';
import type { FileRecord } from '../../store/store.ts';
import type { AppDeps } from '../deps.ts';
import { newId } from '../ids.ts';
import { safeFilename } from '../services/safe-filename.ts';
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
 * Streams an upload's bytes into file storage under `id`; a cut-off or malformed body is a
 * 400, one over the owner's stored-bytes limit a 429 (nothing of it is kept).
 */
export async function saveUpload(
  deps: AppDeps,
  id: string,
  part: MultipartFile,
  owner: string,
): Promise<{ bytes: number; sha256: string }> {
  const left = await deps.limits.storedBytesLeft(owner);
  const maxBytes = Math.min(deps.config.maxUploadBytes, left);
  try {
    return await deps.files.save(id, part.file, maxBytes, () => part.file.truncated);
  } catch (error) {
    if (error instanceof PayloadTooLargeError && maxBytes < deps.config.maxUploadBytes) {
      throw deps.limits.storedBytesError();
    }
    throw asUploadError(error);
  }
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
    const { bytes, sha256 } = await saveUpload(deps, id, part, request.owner);
    return fileObject(
      await deps.store.createFile({ id, owner: request.owner, filename, purpose, bytes, sha256 }),
    );
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
