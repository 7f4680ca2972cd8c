import { randomBytes } from 'node:crypto';
import { lstat, opendir, rename, rmdir, unlink } from 'node:fs/promises';

/**
 * Removes a file or a directory tree however deep, without recursion and with paths that
 * stay short: each directory's subdirectories are first moved up beside the tree's top (a
 * rename on the same filesystem), then its other entries are unlinked and it is removed.
 * `rm -r` walks by full path and fails past PATH_MAX (a 1,100-level tree a cell made left
 * it half done). Names are handled as bytes, so names that are not UTF-8 go too. Nothing is
 * followed: entries are typed by `lstat`/dirent, a symlink is unlinked like a file.
 */
export async function removeTree(target: string | Buffer): Promise<void> {
  const info = await lstat(target).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory()) {
    await unlink(target);
    return;
  }
  const top = Buffer.from(target);
  // Its parent with the trailing slash (the path is absolute: there is always one).
  const parent = top.subarray(0, top.lastIndexOf('/') + 1);
  const pending: Buffer[] = [top];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    // 'buffer' names (Node supports it; its types do not say so): the bytes, not a lossy decoding.
    const options = { encoding: 'buffer' as unknown as BufferEncoding, bufferSize: 256 };
    const handle = await opendir(dir, options).catch(() => undefined);
    if (handle) {
      for await (const entry of handle) {
        const name = entry.name as unknown as Buffer;
        const path = Buffer.concat([dir, Buffer.from('/'), name]);
        if (entry.isDirectory()) {
          const moved = Buffer.concat([
            parent,
            Buffer.from(`.analyst-removing-${randomBytes(8).toString('hex')}`),
          ]);
          await rename(path, moved);
          pending.push(moved);
        } else {
          await unlink(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          });
        }
      }
    }
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
