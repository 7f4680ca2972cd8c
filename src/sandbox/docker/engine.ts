import Docker from 'dockerode';
import { SandboxUnavailableError } from '../errors/sandbox-unavailable-error.ts';
import type { DockerEndpoint } from './endpoint.ts';

export const DEFAULT_IMAGE = 'analyst-sandbox:latest';

/** The sandbox image: PYTHON_SANDBOX_IMAGE, else Analyst's own data-science image. */
export function sandboxImage(env: Record<string, string | undefined> = process.env): string {
  return env.PYTHON_SANDBOX_IMAGE?.trim() || DEFAULT_IMAGE;
}

export function dockerClient(endpoint: DockerEndpoint): Docker {
  return new Docker({ socketPath: endpoint.socketPath });
}

/** How to get an engine, for messages. */
export function engineFix(endpoint: DockerEndpoint): string {
  return (
    `start the Docker engine (as root on Debian: \`bash scripts/ensure-docker.sh\` installs docker.io and starts dockerd) ` +
    `or set PYTHON_SANDBOX_DOCKER_HOST to a local engine socket (tried: ${endpoint.tried.join(', ')})`
  );
}

/**
 * Checks that the engine answers and the image exists, and returns the engine's CPU count.
 * Throws SandboxUnavailableError with what was tried and how to fix it.
 */
export async function checkEngine(
  docker: Docker,
  endpoint: DockerEndpoint,
  image: string,
): Promise<{ cpuCount: number }> {
  let cpuCount: number;
  try {
    cpuCount = Number((await docker.info()).NCPU) || 1;
  } catch (error) {
    throw unavailableFromError(error, endpoint);
  }
  try {
    await docker.getImage(image).inspect();
  } catch (error) {
    if (statusCodeOf(error) === 404) {
      throw new SandboxUnavailableError(
        `the sandbox image ${image} is not present on the engine at ${endpoint.socketPath}: build it with ` +
          '`npx analyst sandbox build`, or set PYTHON_SANDBOX_IMAGE to a local image with Python >= 3.9',
      );
    }
    throw unavailableFromError(error, endpoint);
  }
  return { cpuCount };
}

/** Maps a failed engine call to the message a person can act on. */
export function unavailableFromError(error: unknown, endpoint: DockerEndpoint): SandboxUnavailableError {
  const code = (error as { code?: string }).code;
  const where = `${endpoint.socketPath} (from ${endpoint.source})`;
  if (code === 'EACCES') {
    return new SandboxUnavailableError(
      `permission denied on the Docker socket ${where}: run as root or as a member of the socket's group`,
      { cause: error },
    );
  }
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE') {
    return new SandboxUnavailableError(`no Docker engine answers at ${where}: ${engineFix(endpoint)}`, {
      cause: error,
    });
  }
  return new SandboxUnavailableError(
    `the Docker engine at ${where} failed: ${(error as Error).message ?? String(error)}`,
    { cause: error },
  );
}

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES' || code === 'ECONNRESET';
}

export function statusCodeOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * An engine error as a tenant may read it: host paths (a workspace's mount point, the kernel
 * socket's directory) become `<host path>`. Paths in `keep` (the engine socket, which the
 * operator needs to see) stay.
 */
export function scrubHostPaths(message: string, keep: readonly string[] = []): string {
  return message.replace(/\/(?:[^\s"':,/]+\/)+[^\s"':,]*/g, (path) =>
    keep.some((k) => path === k || path.startsWith(`${k} `)) ? path : '<host path>',
  );
}
