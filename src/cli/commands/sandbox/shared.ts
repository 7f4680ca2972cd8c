import type Docker from 'dockerode';
import {
  type DockerEndpoint,
  resolveDockerEndpoint,
  systemEndpointEnvironment,
} from '../../../sandbox/docker/endpoint.ts';
import { dockerClient, sandboxImage, unavailableFromError } from '../../../sandbox/docker/engine.ts';
import type { CommandIO } from '../../io.ts';

/** The engine a sandbox command talks to, found as docs/spec.md#sandbox-engine says. */
export function engineFromEnvironment(io: CommandIO): {
  endpoint: DockerEndpoint;
  docker: Docker;
  image: string;
} {
  const endpoint = resolveDockerEndpoint({ ...systemEndpointEnvironment(), env: io.env });
  return { endpoint, docker: dockerClient(endpoint), image: sandboxImage(io.env) };
}

/** Pings the engine; throws SandboxUnavailableError with what was tried and how to fix it. */
export async function requireEngine(docker: Docker, endpoint: DockerEndpoint): Promise<void> {
  try {
    await docker.ping();
  } catch (error) {
    throw unavailableFromError(error, endpoint);
  }
}
