import { isAnalystError } from '../../errors/index.ts';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.ts';
import { hostResult } from '../exec-result.ts';
import type { ExecResult } from '../sandbox.ts';
import type { DockerEndpoint } from './endpoint.ts';
import { isConnectionError, scrubHostPaths, unavailableFromError } from './engine.ts';

/**
 * A cell whose container could not be had, as data (`unavailable`, with how to fix it);
 * Analyst's own typed errors other than SandboxUnavailableError are thrown on.
 */
export function unavailableResult(error: unknown, endpoint: DockerEndpoint): ExecResult {
  if (error instanceof SandboxUnavailableError) return hostResult('unavailable', error.message);
  if (isAnalystError(error)) throw error;
  if (isConnectionError(error))
    return hostResult('unavailable', unavailableFromError(error, endpoint).message);
  const message = scrubHostPaths((error as Error).message, [endpoint.socketPath]);
  return hostResult('unavailable', `the sandbox could not be started: ${message}`);
}
