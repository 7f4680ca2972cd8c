import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from '../../ids/random-hex.ts';
import { backgroundHelper } from './system-commands.ts';

/** A formatted, empty image holds well under this much data (about 0.7 MB at 1 GiB). */
const MAX_TEMPLATE_DATA_BYTES = 64 * 1024 * 1024;
const PREFIX = '.template-';

/**
 * One formatted, empty workspace image per store, copied for each new workspace instead of
 * running mkfs.ext4 again: the copy takes only the image's data extents (its holes stay
 * holes) and runs in the host helper, no program started. mkfs.ext4 took a fifth of the
 * machine when many threads start at once (docs/performance.md#image-template). A copy is the same
 * filesystem (size, inodes, journal, owner); only its UUID and hash seed are shared, and
 * nothing reads those. Where there is no helper, or the copy fails, the caller formats
 * the image itself.
 */
export class ImageTemplate {
  private made: Promise<string | undefined> | undefined;

  constructor(
    private readonly root: string,
    /** Makes a new image with an empty filesystem of the store's quota. */
    private readonly format: (image: string) => Promise<void>,
  ) {}

  /** Templates a killed process left in `root` (never another live replica's: `shared` stores keep theirs). */
  static async removeLeftovers(root: string): Promise<void> {
    for (const name of await readdir(root))
      if (name.startsWith(PREFIX)) await rm(join(root, name), { force: true });
  }

  /** Makes `image` as a copy of the template; false when there is none (the caller formats it). */
  async copyTo(image: string): Promise<boolean> {
    const template = await this.ready();
    if (!template) return false;
    return !(await backgroundHelper().copySparse(template, image, MAX_TEMPLATE_DATA_BYTES)).error;
  }

  async remove(): Promise<void> {
    const template = await this.made;
    this.made = Promise.resolve(undefined);
    if (template) await rm(template, { force: true });
  }

  private ready(): Promise<string | undefined> {
    this.made ??= (async () => {
      const path = join(this.root, `${PREFIX}${process.pid}-${randomHex(6)}.img`);
      try {
        await this.format(path);
        return path;
      } catch {
        await rm(path, { force: true });
        return undefined; // every workspace is formatted on its own, as before
      }
    })();
    return this.made;
  }
}
