import type { Readable } from 'node:stream';

/**
 * What a workspace is, independent of where its bytes live (docs/spec.md#container-hardening, docs/spec.md#sandbox-lifecycle). A thread's
 * workspace is the directory its cells see as /workspace; everything the host does with it
 * (listing, downloads, uploads, reports, previews, exports, deletion) goes through this
 * interface, never through a host path. A cell may be changing the workspace at the same
 * moment, so every implementation must be safe against that by construction: it never
 * follows a symlink inside the workspace at any path component and never leaves it.
 *
 * The local implementation (`local/`) gives each workspace its own loop-mounted ext4
 * filesystem; an object store or a Kubernetes volume would be another implementation (see
 * docs/architecture.md).
 */

export type WorkspaceEntryKind = 'file' | 'directory';

export interface WorkspaceEntry {
  /** Relative to the workspace root, `/`-separated, e.g. `charts/sales.png`. */
  path: string;
  kind: WorkspaceEntryKind;
  /** Apparent size in bytes (a sparse file counts its full length); 0 for directories. */
  bytes: number;
  /**
   * Bytes the file occupies on its filesystem (st_blocks × 512), where the store knows it: a
   * sparse file's holes take none, so `bytes - allocatedBytes` is what it claims beyond what
   * it holds. Absent for directories and for stores that cannot tell.
   */
  allocatedBytes?: number;
  modifiedAt: Date;
}

export interface ListOptions {
  /** Only the entries directly under the root. Default false. */
  topLevelOnly?: boolean;
  /** Include directories as entries of their own. Default false: regular files only. */
  directories?: boolean;
  /** At most this many entries (the listing stops there). Default 10,000. */
  limit?: number;
  /** Directories deeper than this are not entered. Default 16. */
  maxDepth?: number;
}

/** An open regular file of a workspace. Close it when done. */
export interface WorkspaceFile {
  readonly path: string;
  readonly bytes: number;
  readonly modifiedAt: Date;
  /**
   * The open file's descriptor, where the file is a local one: handed to a child process
   * (as one of its stdio descriptors) it reads this very file, whatever a cell does to the
   * path meanwhile. Valid until `close()` or `stream()`.
   */
  readonly descriptor?: number;
  /** The content, or the bytes in [start, end) of it. The stream closes the file when it ends. */
  stream(range?: { start: number; end: number }): Readable;
  /** The whole content; InvalidInputError when the file is larger than `maxBytes`. */
  read(maxBytes: number): Promise<Buffer>;
  close(): Promise<void>;
}

export interface WriteOptions {
  /** Fail with `WorkspaceFileExistsError` when the path exists. Default false (replace). */
  exclusive?: boolean;
}

export interface WorkspaceUsage {
  bytes: number;
  files: number;
  /** The workspace's size quota in bytes; null when it has none. */
  quotaBytes: number | null;
  /** The workspace's file (inode) quota; null when it has none. */
  quotaFiles: number | null;
}

/** How the sandbox backend mounts a workspace at /workspace (only `sandbox/` reads this). */
export interface WorkspaceMount {
  kind: 'host-directory';
  /** A host directory that is the workspace's root (for the local backend, its mount point). */
  path: string;
}

export interface Workspace {
  readonly id: string;
  /** Entries in path order, never following symlinks (they are left out). */
  list(options?: ListOptions): Promise<WorkspaceEntry[]>;
  /** The entry at `path`, or undefined when there is none (or it is a symlink or a special file). */
  stat(path: string): Promise<WorkspaceEntry | undefined>;
  /** Opens a regular file for reading: NotFoundError, or InvalidInputError for a bad path. */
  open(path: string): Promise<WorkspaceFile>;
  /**
   * Writes a file (parent directories are created), owned by the sandbox user so cells can
   * change it. A full workspace is a PayloadTooLargeError that says so.
   */
  write(path: string, data: Buffer | Readable, options?: WriteOptions): Promise<{ bytes: number }>;
  /** Removes a file or a directory with everything under it; false when there was nothing. */
  remove(path: string): Promise<boolean>;
  usage(): Promise<WorkspaceUsage>;
  /** How to mount it; only after `ready` resolved. */
  mount(): WorkspaceMount;
  /**
   * Resolves when the workspace exists: a store may make it in the background, so a new
   * thread's first answer need not wait for a filesystem. Every other method waits for it.
   */
  ready(): Promise<void>;
  /**
   * Runs `work` with the workspace ready and its filesystem kept in place meanwhile (a store
   * may unmount idle workspaces, docs/spec.md#workspace-mounts): the sandbox binds `mount()`
   * into a container inside it, and the bind then keeps it mounted.
   */
  keepMounted<T>(work: () => Promise<T>): Promise<T>;
}

/** Where workspaces are made, found again and destroyed. */
export interface WorkspaceStore {
  /** What kind of workspaces this store makes, for status pages (e.g. `loop-ext4`). */
  readonly kind: string;
  /** A new workspace; it may still be in the making (see `Workspace.ready`). */
  create(): Promise<Workspace>;
  /** The workspace `id` (mounting it again after a restart if needed); NotFoundError if it is gone. */
  open(id: string): Promise<Workspace>;
  /** Deletes the workspace and everything in it, without walking its files. Idempotent. */
  destroy(id: string): Promise<void>;
  /** Releases what the store holds (e.g. unmounts what it mounted); workspaces stay. */
  close(): Promise<void>;
}
