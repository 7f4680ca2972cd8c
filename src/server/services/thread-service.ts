import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import type { SandboxManager } from '../../sandbox/sandbox.ts';
import { openWorkspaceFile } from '../../sandbox/workspace/confined.ts';
import { giveToSandbox } from '../../sandbox/workspace/give-to-sandbox.ts';
import type { FileRecord, Store, ThreadRecord } from '../../store/store.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import type { FileStorage } from './file-storage.ts';
import { numberedName, safeFilename } from './safe-filename.ts';

/** Threads and their workspaces: create, find (per owner), attach files, delete. */
export class ThreadService {
  constructor(
    private readonly store: Store,
    private readonly sandbox: SandboxManager,
    private readonly files: FileStorage,
  ) {}

  async create(owner: string, metadata: Record<string, unknown> = {}): Promise<ThreadRecord> {
    const { workspaceDir } = await this.sandbox.allocateWorkspace();
    return this.store.createThread({
      id: newId('thread'),
      owner,
      workspace_dir: workspaceDir,
      title: null,
      metadata,
    });
  }

  /** The owner's thread, or NotFoundError (also for other owners' ids and malformed ids). */
  async get(owner: string, id: string, param = 'thread_id'): Promise<ThreadRecord> {
    const thread = ID_PATTERN.thread.test(id) ? await this.store.getThread(owner, id) : undefined;
    if (!thread) throw new NotFoundError(`no thread ${JSON.stringify(id)}`, { param });
    return thread;
  }

  /** The owner's uploaded file, or NotFoundError. */
  async file(owner: string, id: string, param = 'file_ids'): Promise<FileRecord> {
    const file = ID_PATTERN.file.test(id) ? await this.store.getFile(owner, id) : undefined;
    if (!file) throw new NotFoundError(`no file ${JSON.stringify(id)}`, { param });
    return file;
  }

  /** Copies an uploaded file into the workspace under its name (see `place`). */
  attach(thread: ThreadRecord, file: FileRecord): Promise<string> {
    return this.place(thread, this.files.path(file.id), safeFilename(file.filename), file.sha256);
  }

  /**
   * Copies a host file into the workspace as `name`. The same content already there is
   * not copied twice; a different file with the name gets `name (2).ext`. The source is
   * never inside the workspace and the copy is exclusive, so a cell cannot make the host
   * write through a symlink or hand it a file of its choosing.
   */
  async place(thread: ThreadRecord, source: string, name: string, sha256: string): Promise<string> {
    for (let n = 1; n <= 1000; n++) {
      const candidate = n === 1 ? name : numberedName(name, n);
      const target = join(thread.workspace_dir, candidate);
      try {
        await copyFile(source, target, constants.COPYFILE_EXCL);
        await giveToSandbox(target);
        return candidate;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        if ((await sha256Of(thread.workspace_dir, candidate)) === sha256) return candidate;
      }
    }
    throw new InvalidInputError(`too many files named like ${name}`, { param: 'file' });
  }

  async delete(thread: ThreadRecord): Promise<void> {
    await this.sandbox.closeSession(thread.id);
    await this.store.deleteThread(thread.owner, thread.id);
    await rm(thread.workspace_dir, { recursive: true, force: true });
  }
}

async function sha256Of(dir: string, name: string): Promise<string | undefined> {
  try {
    const handle = await openWorkspaceFile(dir, name);
    try {
      const hash = createHash('sha256');
      for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
      return hash.digest('hex');
    } finally {
      await handle.close().catch(() => {});
    }
  } catch {
    return undefined; // a symlink or a directory: certainly not the same file
  }
}
