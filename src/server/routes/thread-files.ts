import { link, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../../errors/index.ts';
import { listWorkspaceFiles, openWorkspaceFile } from '../../sandbox/workspace/confined.ts';
import { giveToSandbox } from '../../sandbox/workspace/give-to-sandbox.ts';
import type { AppDeps } from '../deps.ts';
import { baseUrl, threadFileUrl } from '../file-links.ts';
import { newId } from '../ids.ts';
import { FileStorage } from '../services/file-storage.ts';
import { numberedName, safeFilename } from '../services/safe-filename.ts';
import { contentType } from './content-type.ts';
import { contentDisposition, uploadedFile } from './files.ts';

type Params = { Params: { id: string; '*': string } };

/** A thread's workspace files: list, download and upload, confined to the workspace. */
export function registerThreadFileRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<Params>('/v1/threads/:id/files', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const base = baseUrl(request, deps.config);
    const files = await listWorkspaceFiles(thread.workspace_dir);
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
    const path = request.params['*'];
    const handle = await openWorkspaceFile(thread.workspace_dir, path);
    const { size } = await handle.stat();
    const name = path.split('/').pop() ?? path;
    const type = contentType(name);
    const inline =
      /^image\/(png|jpeg|gif|webp)$/.test(type) || type.startsWith('text/plain') || type === 'text/csv';
    return reply
      .type(type)
      .header('content-length', size)
      .header('x-content-type-options', 'nosniff')
      .header(
        'content-security-policy',
        "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
      )
      .header(
        'content-disposition',
        inline ? contentDisposition(name).replace(/^attachment/, 'inline') : contentDisposition(name),
      )
      .send(handle.createReadStream());
  });

  app.post<Params>('/v1/threads/:id/files', async (request) => {
    const thread = await deps.threads.get(request.owner, request.params.id);
    const { part } = await uploadedFile(request);
    const name = safeFilename(part.filename);
    // Stream into a private file inside the workspace, then link it under a free name: the
    // link never replaces an existing file and never follows a symlink a cell left there.
    const staging = new FileStorage(thread.workspace_dir);
    const temporary = `.upload-${newId('file')}`;
    const { bytes } = await staging.save(
      temporary,
      part.file,
      deps.config.maxUploadBytes,
      () => part.file.truncated,
    );
    try {
      for (let n = 1; n <= 1000; n++) {
        const candidate = n === 1 ? name : numberedName(name, n);
        try {
          await link(join(thread.workspace_dir, temporary), join(thread.workspace_dir, candidate));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
          throw error;
        }
        await giveToSandbox(join(thread.workspace_dir, candidate));
        return {
          path: candidate,
          bytes,
          url: threadFileUrl(baseUrl(request, deps.config), thread.id, candidate),
        };
      }
      throw new InvalidInputError(`too many files named like ${name}`, { param: 'file' });
    } finally {
      await rm(join(thread.workspace_dir, temporary), { force: true });
    }
  });
}
