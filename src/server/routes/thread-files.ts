import type { FastifyInstance } from 'fastify';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { newId } from '../../ids/api-ids.ts';
import { safeFilename } from '../../threads/safe-filename.ts';
import { contentType } from '../../workspace/content-type.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { contentDisposition, saveUpload, uploadedFile } from './files.ts';

/** How long a listing waits for a finished run's reports before it lists what is there. */
const AFTER_RUN_WAIT_MS = 15_000;

type Params = { Params: { id: string; '*': string } };

/** A thread's workspace files: list, download, upload and delete, through its Workspace only. */
export function registerThreadFileRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<Params>('/v1/threads/:id/files', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const base = baseUrl(deps.config);
    // Right after run-end the reports are still being written: the list waits for them (a
    // bounded while), so a client that lists at run-end sees reports/ (issue 31, defect 6).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      deps.runs.afterRunDone(thread.id),
      new Promise((resolve) => {
        timer = setTimeout(resolve, AFTER_RUN_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    const files = await workspace.list();
    return {
      object: 'list',
      data: files.map((f) => ({
        path: f.path,
        bytes: f.bytes,
        modified_at: Math.floor(f.modifiedAt.getTime() / 1000),
        url: threadFileUrl(base, thread.id, f.path),
      })),
    };
  });

  app.get<Params>('/v1/threads/:id/files/*', async (request, reply) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const workspace = await deps.threads.workspace(thread);
    const path = request.params['*'];
    const file = await workspace.open(path);
    const name = path.split('/').pop() ?? path;
    const type = contentType(name);
    const inline =
      /^image\/(png|jpeg|gif|webp)$/.test(type) || type.startsWith('text/plain') || type === 'text/csv';
    return reply
      .type(type)
      .header('content-length', file.bytes)
      .header('x-content-type-options', 'nosniff')
      .header(
        'content-security-policy',
        "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
      )
      .header(
        'content-disposition',
        inline ? contentDisposition(name).replace(/^attachment/, 'inline') : contentDisposition(name),
      )
      .send(file.stream({ start: 0, end: file.bytes }));
  });

  app.post<Params>('/v1/threads/:id/files', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const operation = deps.threads.locks.beginWrite(thread.id);
    try {
      const { part, fields } = await uploadedFile(request);
      // `folder` (sent before the file): where in the workspace it goes, e.g. `raw/2024`.
      const name = folderOf(fields.folder) + safeFilename(part.filename);
      // Staged in file storage first (its size checked, its hash taken), then placed.
      const staging = `.upload-${newId('file')}`;
      const { bytes, sha256, hold } = await saveUpload(deps, staging, part, request);
      let stored = 0;
      try {
        const path = await deps.threads.place(thread, () => deps.files.open(staging), name, sha256);
        await deps.threads.recordUsage(thread);
        stored = bytes;
        return { path, bytes, url: threadFileUrl(baseUrl(deps.config), thread.id, path) };
      } finally {
        hold.release(stored);
        await deps.files.delete(staging);
      }
    } finally {
      operation.end();
    }
  });

  app.delete<Params>('/v1/threads/:id/files/*', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const operation = deps.threads.locks.beginWrite(thread.id);
    try {
      const workspace = await deps.threads.workspace(thread);
      const path = request.params['*'];
      if (!(await workspace.remove(path)))
        throw new NotFoundError(`no file ${JSON.stringify(path)} in the workspace`, { param: 'path' });
      return { path, object: 'thread.file', deleted: true };
    } finally {
      operation.end();
    }
  });
}

/** An upload's folder as a path prefix (`a/b/`), each segment a safe file name; '' for none. */
function folderOf(raw: string | undefined): string {
  const segments = (raw ?? '').split('/').filter((s) => s !== '');
  if (segments.length > 16) throw new InvalidInputError('folder is nested too deeply', { param: 'folder' });
  return segments
    .map((segment) => {
      const safe = safeFilename(segment);
      if (safe !== segment.trim() || safe.startsWith('.'))
        throw new InvalidInputError(`${JSON.stringify(segment)} is not a usable folder name`, {
          param: 'folder',
        });
      return `${safe}/`;
    })
    .join('');
}
