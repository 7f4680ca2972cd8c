export { WorkspaceFileExistsError } from './errors/workspace-file-exists-error.ts';
export { WorkspaceUnavailableError } from './errors/workspace-unavailable-error.ts';
export { DirectoryWorkspaceStore, userDirectoryWorkspace } from './local/directory-workspace-store.ts';
export { unsupportedReason } from './local/ext4-images.ts';
export { LocalWorkspace, SANDBOX_GID, SANDBOX_UID } from './local/local-workspace.ts';
export {
  DEFAULT_QUOTA_BYTES,
  DEFAULT_QUOTA_FILES,
  type LoopWorkspaceOptions,
  LoopWorkspaceStore,
} from './local/loop-workspace-store.ts';
export { workspacePathParts } from './paths.ts';
export type * from './workspace.ts';
