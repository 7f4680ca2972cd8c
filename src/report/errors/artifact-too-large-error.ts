import { AnalystError } from '../../errors/index.ts';

/** An artifact is larger than a report may read of it; the report links it instead. */
export class ArtifactTooLargeError extends AnalystError {
  readonly code = 'artifact_too_large';
  readonly status = 413;
}
