/** The typed client of the HTTP API that the web UI and the CLI share (docs/architecture.md#layers). */
export {
  AnalystClient,
  type AnalystClientOptions,
  encodePath,
  type StartRunBody,
  type ThreadMetadata,
} from './analyst-client.ts';
export { ApiError } from './api-error.ts';
export { cancelled, type UploadRequest, type UploadTransport } from './upload.ts';
