/** Analyst's public library surface. Anything not exported here is private. */
export {
  AnalystError,
  ConfigurationError,
  InvalidInputError,
  isAnalystError,
  NotFoundError,
} from './errors/index.ts';
export { type DockerEndpoint, resolveDockerEndpoint } from './sandbox/docker/endpoint.ts';
export { DEFAULT_IMAGE } from './sandbox/docker/engine.ts';
export {
  createDockerSandbox,
  type DockerSandboxManager,
  type DockerSandboxOptions,
} from './sandbox/docker/manager.ts';
export { SandboxUnavailableError } from './sandbox/errors/sandbox-unavailable-error.ts';
export { type BuildImageOptions, type BuildImageResult, buildSandboxImage } from './sandbox/image/build.ts';
export { DEFAULT_LIMITS, type SandboxLimits } from './sandbox/limits.ts';
export type {
  AllocatedWorkspace,
  Artifact,
  CellRequest,
  EphemeralRequest,
  ExecResult,
  ExecStatus,
  SandboxManager,
  SandboxStatus,
  SessionRef,
} from './sandbox/sandbox.ts';
