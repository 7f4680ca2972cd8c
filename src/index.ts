/** Analyst's public library surface. Anything not exported here is private. */

// Agent
export { DEFAULT_RUN_LIMITS, type RunLimits } from './agent/budget.ts';
export type { AgentEvent, AgentEventType, RunStatus, TokenCount } from './agent/events.ts';
export {
  type Evidence,
  type GroundedNumber,
  type GroundingSource,
  type GroundingStatus,
  groundAnswer,
} from './agent/grounding/index.ts';
export type { AgentProtocol, ProtocolOutcome } from './agent/protocol.ts';
export { type RunAnalysisOptions, runAnalysis } from './agent/run-analysis.ts';
export { parseDisallowedTools } from './agent/tools/definitions.ts';
export { parseSections, repairTranscript } from './agent/transcript/tags.ts';
export {
  type CellStep,
  type RunView,
  readRun,
  readRuns,
  type Step,
  StepBuilder,
  type StepUpdate,
} from './agent/view/steps.ts';
export { TranscriptWriter, transcriptOf } from './agent/view/transcript.ts';
// Client: the typed client of the HTTP API (the web UI and `analyst chat` use it too)
export { AnalystClient, type AnalystClientOptions, ApiError } from './client/index.ts';
// Errors
export {
  AnalystError,
  ConfigurationError,
  ConflictError,
  InvalidInputError,
  isAnalystError,
  NotFoundError,
} from './errors/index.ts';
// Models
export { ModelError } from './llm/errors/model-error.ts';
export { ModelTimeoutError } from './llm/errors/model-timeout-error.ts';
export { UnknownModelError } from './llm/errors/unknown-model-error.ts';
export type {
  ChatMessage,
  GroundingMode,
  LanguageModel,
  ModelEntry,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ProtocolName,
} from './llm/model.ts';
export { OpenAICompatibleModel, type OpenAICompatibleOptions } from './llm/openai-compatible.ts';
export { loadModelRegistry, ModelRegistry, OFFLINE_MODEL } from './llm/registry.ts';
export { type SamplingOptions, samplingFromWire } from './llm/sampling.ts';
export { type ScriptedModel, startScriptedModel } from './llm/scripted/server.ts';
// Reports
export {
  notebookJson,
  renderHtmlReport,
  renderMarkdownReport,
  renderNotebook,
  renderPdf,
  type ThreadHistory,
} from './report/index.ts';
// Runs
export type { AfterRun, RunMonitor, RunPolicy } from './runs/run-hooks.ts';
export { RunService, type RunServiceOptions, type StartRun } from './runs/run-service.ts';
export type { RunThreads } from './runs/submit.ts';
// Sandbox
export { type DockerEndpoint, resolveDockerEndpoint } from './sandbox/docker/endpoint.ts';
export { DEFAULT_IMAGE } from './sandbox/docker/engine.ts';
export {
  createDockerSandbox,
  type DockerSandboxManager,
  type DockerSandboxOptions,
} from './sandbox/docker/manager.ts';
export { SandboxUnavailableError } from './sandbox/errors/sandbox-unavailable-error.ts';
export { ExecResultSchema } from './sandbox/exec-result-schema.ts';
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

// Service
export { loadServerConfig, type ServerConfig } from './server/config.ts';
export { createService, type Service } from './server/service.ts';
export { SqliteStore } from './store/sqlite/sqlite-store.ts';
export type { Store, StoredEvent } from './store/store.ts';
// Threads
export { storeThreads } from './threads/store-threads.ts';
export { ThreadLocks } from './threads/thread-locks.ts';
// Workspaces
export {
  DirectoryWorkspaceStore,
  LoopWorkspaceStore,
  userDirectoryWorkspace,
  WorkspaceUnavailableError,
} from './workspace/index.ts';
export type { Workspace, WorkspaceEntry, WorkspaceFile, WorkspaceStore } from './workspace/workspace.ts';
