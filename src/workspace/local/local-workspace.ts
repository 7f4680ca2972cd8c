import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import {
  type FileHandle,
  lchown,
  link,
  lstat,
  mkdir,
  open,
  opendir,
  rename,
  statfs,
  unlink,
} from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from '../../errors/index.ts';
import { WorkspaceFileExistsError } from '../errors/workspace-file-exists-error.ts';
import { escapeName, unescapeName } from '../name-escape.ts';
import { workspacePathParts } from '../paths.ts';
import type {
  ListOptions,
  Workspace,
  WorkspaceEntry,
  WorkspaceFile,
  WorkspaceMount,
  WorkspaceUsage,
  WriteOptions,
} from '../workspace.ts';
import { removeTree } from './remove-tree.ts';

/** The sandbox user: files the host writes into a workspace are given to it. */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

/** Names the filesystem itself keeps at the root (ext4's lost+found), never shown. */
const HIDDEN_ROOT_NAMES = new Set(['lost+found']);

/** How the files a write fills before renaming them into place begin; listings leave them out. */
const PARTIAL_PREFIX = '.analyst-partial-';

/**
 * A workspace that is a directory on this host. Its safety against a cell changing the
 * directory meanwhile comes from where the directory is: the loop store mounts each one as
 * its own filesystem with `nosymfollow`, so no path resolution in it ever follows a
 * symlink, and without `..` (refused as text) nothing can lead out of it. Every operation
 * also refuses symlinks itself (`O_NOFOLLOW`, `lstat`), and ownership is changed through
 * open handles or `lchown`, never by path-following calls.
 */
export class LocalWorkspace implements Workspace {
  constructor(
    readonly id: string,
    private readonly root: string,
    /** `filesystem`: the root is a filesystem of its own, whose size and inodes are the quota. */
    private readonly quota: 'filesystem' | 'none',
  ) {}

  mount(): WorkspaceMount {
    return { kind: 'host-directory', path: this.root };
  }

  async list(options: ListOptions = {}): Promise<WorkspaceEntry[]> {
    const limit = options.limit ?? 10_000;
    const maxDepth = options.topLevelOnly ? 0 : (options.maxDepth ?? 16);
    const found: WorkspaceEntry[] = [];
    // Names are read as bytes and shown escaped (escapeName): a name that is not UTF-8 is
    // listed, and its listed path opens it, instead of being decoded lossily and lost.
    const walk = async (dir: Buffer, prefix: string, depth: number): Promise<void> => {
      const names: Array<{ entry: Dirent; bytes: Buffer; shown: string }> = [];
      try {
        // opendir reads in batches: a directory of a million names is not loaded at once.
        const handle = await opendir(dir, {
          bufferSize: 256,
          encoding: 'buffer' as unknown as BufferEncoding,
        });
        for await (const entry of handle) {
          const bytes = entry.name as unknown as Buffer;
          const shown = escapeName(bytes);
          if (depth === 0 && HIDDEN_ROOT_NAMES.has(shown)) continue;
          if (shown.startsWith(PARTIAL_PREFIX)) continue;
          names.push({ entry, bytes, shown });
          if (names.length >= limit - found.length + 1_000) break;
        }
      } catch {
        return; // gone, or not a directory any more: a cell changed it
      }
      names.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
      for (const { entry, bytes, shown } of names) {
        if (found.length >= limit) return;
        const path = prefix + shown;
        const full = Buffer.concat([dir, Buffer.from('/'), bytes]);
        if (entry.isFile()) {
          const info = await lstat(full).catch(() => undefined);
          if (info?.isFile())
            found.push({
              path,
              kind: 'file',
              bytes: info.size,
              allocatedBytes: info.blocks * 512,
              modifiedAt: info.mtime,
            });
        } else if (entry.isDirectory()) {
          if (options.directories) {
            const info = await lstat(full).catch(() => undefined);
            if (!info?.isDirectory()) continue;
            found.push({ path, kind: 'directory', bytes: 0, modifiedAt: info.mtime });
          }
          if (depth < maxDepth) await walk(full, `${path}/`, depth + 1);
        }
      }
    };
    await walk(Buffer.from(this.root), '', 0);
    return found;
  }

  async stat(path: string): Promise<WorkspaceEntry | undefined> {
    const parts = workspacePathParts(path);
    if (HIDDEN_ROOT_NAMES.has(parts[0]!)) return undefined;
    const info = await lstat(this.hostPath(parts)).catch(() => undefined);
    if (!info) return undefined;
    if (info.isFile())
      return {
        path: parts.join('/'),
        kind: 'file',
        bytes: info.size,
        allocatedBytes: info.blocks * 512,
        modifiedAt: info.mtime,
      };
    if (info.isDirectory())
      return { path: parts.join('/'), kind: 'directory', bytes: 0, modifiedAt: info.mtime };
    return undefined;
  }

  async open(path: string): Promise<WorkspaceFile> {
    const parts = workspacePathParts(path);
    const shown = parts.join('/');
    if (HIDDEN_ROOT_NAMES.has(parts[0]!))
      throw new NotFoundError(`no file ${shown} in the workspace`, { param: 'path' });
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO a cell left must not hang the server.
      handle = await open(
        this.hostPath(parts),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP')
        throw new InvalidInputError(`${shown} is or goes through a symlink; refused`, { param: 'path' });
      throw new NotFoundError(`no file ${shown} in the workspace`, { param: 'path' });
    }
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new NotFoundError(`${shown} is not a regular file`, { param: 'path' });
    }
    return openFile(handle, shown, info.size, info.mtime);
  }

  async ready(): Promise<void> {}

  keepMounted<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  /**
   * Writes to a partial file beside the target and renames it into place: a listing or a
   * reader meanwhile sees the old file whole (never a truncated one, issue 31), and a write
   * that fails leaves the old file. rename(2) replaces a symlink at the target, never follows it.
   */
  async write(path: string, data: Buffer | Readable, options: WriteOptions = {}): Promise<{ bytes: number }> {
    const parts = workspacePathParts(path);
    const shown = parts.join('/');
    if (HIDDEN_ROOT_NAMES.has(parts[0]!))
      throw new InvalidInputError(`${shown} is a reserved name`, { param: 'path' });
    await this.makeParents(parts.slice(0, -1));
    const target = join(this.root, ...parts);
    if (options.exclusive && (await lstat(target).catch(() => undefined)))
      throw new WorkspaceFileExistsError(`${shown} exists in the workspace`, { param: 'path' });
    const partial = join(
      this.root,
      ...parts.slice(0, -1),
      `${PARTIAL_PREFIX}${randomBytes(8).toString('hex')}`,
    );
    const flags =
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const handle = await open(partial, flags, 0o644).catch((error) => {
      throw this.writeError(error, shown);
    });
    let bytes = 0;
    try {
      try {
        if (process.getuid?.() === 0) await handle.chown(SANDBOX_UID, SANDBOX_GID);
        const chunks: AsyncIterable<Buffer> | Iterable<Buffer> = Buffer.isBuffer(data) ? [data] : data;
        for await (const chunk of chunks) {
          let offset = 0;
          while (offset < chunk.length) {
            const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset, bytes + offset);
            offset += bytesWritten;
          }
          bytes += chunk.length;
        }
      } finally {
        await handle.close().catch(() => {});
      }
      if (options.exclusive) {
        // link(2) fails when the name exists: two exclusive writes cannot both win.
        await link(partial, target).catch((error) => {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST')
            throw new WorkspaceFileExistsError(`${shown} exists in the workspace`, { param: 'path' });
          throw error;
        });
      } else {
        await rename(partial, target);
      }
    } catch (error) {
      throw this.writeError(error, shown);
    } finally {
      await unlink(partial).catch(() => {}); // gone already once renamed
    }
    return { bytes };
  }

  async remove(path: string): Promise<boolean> {
    const parts = workspacePathParts(path);
    const target = this.hostPath(parts);
    const info = await lstat(target).catch(() => undefined);
    if (!info || HIDDEN_ROOT_NAMES.has(parts[0]!)) return false;
    // Never follows symlinks it meets; on a nosymfollow mount no component can lead out.
    await removeTree(target);
    return true;
  }

  /** The host path of a workspace path's parts: bytes when a part escapes a non-UTF-8 name. */
  private hostPath(parts: string[]): string | Buffer {
    const names = parts.map(unescapeName);
    if (names.every((name) => typeof name === 'string')) return join(this.root, ...names);
    return Buffer.concat([
      Buffer.from(this.root),
      ...names.flatMap((name) => [Buffer.from('/'), Buffer.from(name)]),
    ]);
  }

  async usage(): Promise<WorkspaceUsage> {
    if (this.quota === 'none') {
      const files = await this.list({ limit: 100_000 });
      return {
        bytes: files.reduce((sum, f) => sum + f.bytes, 0),
        files: files.length,
        quotaBytes: null,
        quotaFiles: null,
      };
    }
    const info = await statfs(this.root);
    return {
      bytes: (info.blocks - info.bfree) * info.bsize,
      files: info.files - info.ffree,
      quotaBytes: info.blocks * info.bsize,
      quotaFiles: info.files,
    };
  }

  /**
   * Creates each missing directory on the way, owned by the sandbox user. A symlink a cell
   * left where a directory goes is removed (unlink never follows it) and replaced.
   */
  private async makeParents(parts: string[]): Promise<void> {
    let current = this.root;
    for (const part of parts) {
      current = join(current, part);
      for (let attempt = 0; ; attempt++) {
        try {
          await mkdir(current, { mode: 0o755 });
          if (process.getuid?.() === 0) await lchown(current, SANDBOX_UID, SANDBOX_GID);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'EEXIST') throw this.writeError(error, parts.join('/'));
          const info = await lstat(current).catch(() => undefined);
          if (info?.isDirectory()) break;
          if (!info?.isSymbolicLink() || attempt >= 3) throw this.writeError(error, parts.join('/'));
          await unlink(current).catch(() => {});
        }
      }
    }
  }

  private writeError(error: unknown, shown: string): unknown {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      return new PayloadTooLargeError(
        'the workspace is full (its size or file quota is reached): delete files first',
      );
    }
    if (code === 'ELOOP')
      return new InvalidInputError(`${shown} goes through a symlink; refused`, { param: 'path' });
    if (code === 'ENOTDIR' || code === 'EISDIR' || code === 'EEXIST') {
      return new InvalidInputError(`${shown} cannot be written: a file or directory is in the way`, {
        param: 'path',
      });
    }
    return error;
  }
}

function openFile(handle: FileHandle, path: string, bytes: number, modifiedAt: Date): WorkspaceFile {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
  };
  return {
    path,
    bytes,
    modifiedAt,
    descriptor: handle.fd,
    stream(range) {
      const stream = handle.createReadStream({
        autoClose: true,
        ...(range ? { start: range.start, end: Math.max(range.start, range.end) - 1 } : {}),
      });
      closed = true; // the stream owns the handle now
      return stream;
    },
    async read(maxBytes) {
      if (bytes > maxBytes) {
        await close();
        throw new InvalidInputError(`${path} is ${bytes} bytes, over the ${maxBytes}-byte limit`, {
          param: 'path',
        });
      }
      try {
        const buffer = Buffer.alloc(bytes);
        let offset = 0;
        while (offset < bytes) {
          const { bytesRead } = await handle.read(buffer, offset, bytes - offset, offset);
          if (bytesRead === 0) break; // a cell truncated it meanwhile
          offset += bytesRead;
        }
        return buffer.subarray(0, offset);
      } finally {
        await close();
      }
    },
    close,
  };
}
