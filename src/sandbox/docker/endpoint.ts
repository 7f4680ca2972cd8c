import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConfigurationError } from '../../errors/index.ts';

/** Where the Docker Engine API is, and how we found out (for messages). */
export interface DockerEndpoint {
  /** Absolute path of the engine's unix socket. */
  socketPath: string;
  /** What selected it: a variable name, `default socket`, or `docker context "name"`. */
  source: string;
  /** Every place looked at, in order, for "what was tried" messages. */
  tried: string[];
}

/** The I/O endpoint discovery needs; tests pass fakes. */
export interface EndpointEnvironment {
  env: Record<string, string | undefined>;
  exists: (path: string) => boolean;
  readFile: (path: string) => string | undefined;
  homeDir: string;
}

export const DEFAULT_SOCKET = '/var/run/docker.sock';

export function systemEndpointEnvironment(): EndpointEnvironment {
  return {
    env: process.env,
    exists: existsSync,
    readFile: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
    homeDir: homedir(),
  };
}

/**
 * Resolves the engine socket in the order of docs/spec.md#sandbox-engine: PYTHON_SANDBOX_DOCKER_HOST,
 * DOCKER_HOST, /var/run/docker.sock, then the Docker CLI's current context. Only local
 * unix sockets are accepted: a remote engine would run cells outside this machine's
 * control, so tcp://, ssh://, http(s):// and npipe:// are refused with the variable named.
 * When nothing exists, the default socket is returned (the caller reports it unreachable).
 */
export function resolveDockerEndpoint(io: EndpointEnvironment = systemEndpointEnvironment()): DockerEndpoint {
  const tried: string[] = [];
  for (const variable of ['PYTHON_SANDBOX_DOCKER_HOST', 'DOCKER_HOST']) {
    const value = io.env[variable]?.trim();
    if (!value) continue;
    const socketPath = parseLocalSocket(value, variable);
    return { socketPath, source: variable, tried: [...tried, `${variable}=${value}`] };
  }
  tried.push(DEFAULT_SOCKET);
  if (io.exists(DEFAULT_SOCKET)) return { socketPath: DEFAULT_SOCKET, source: 'default socket', tried };

  const context = currentContext(io, tried);
  if (context) return { ...context, tried };

  // Not in the spec's list, but where rootless Docker and Podman put their sockets.
  const runtimeDir = io.env.XDG_RUNTIME_DIR;
  if (runtimeDir) {
    for (const candidate of [join(runtimeDir, 'docker.sock'), join(runtimeDir, 'podman', 'podman.sock')]) {
      tried.push(candidate);
      if (io.exists(candidate)) return { socketPath: candidate, source: 'user runtime socket', tried };
    }
  }
  return { socketPath: DEFAULT_SOCKET, source: 'default socket', tried };
}

function currentContext(
  io: EndpointEnvironment,
  tried: string[],
): { socketPath: string; source: string } | undefined {
  const configDir = io.env.DOCKER_CONFIG?.trim() || join(io.homeDir, '.docker');
  let name = io.env.DOCKER_CONTEXT?.trim();
  if (!name) {
    const configPath = join(configDir, 'config.json');
    tried.push(`${configPath} currentContext`);
    const config = parseJsonObject(io.readFile(configPath));
    name = typeof config?.currentContext === 'string' ? config.currentContext : undefined;
  }
  if (!name || name === 'default') return undefined;
  const metaPath = join(configDir, 'contexts', 'meta', sha256(name), 'meta.json');
  tried.push(`docker context "${name}" (${metaPath})`);
  const meta = parseJsonObject(io.readFile(metaPath));
  const endpoints = meta?.Endpoints as Record<string, { Host?: unknown }> | undefined;
  const host = endpoints?.docker?.Host;
  if (typeof host !== 'string' || host === '') return undefined;
  const source = `docker context "${name}"`;
  return { socketPath: parseLocalSocket(host, source), source };
}

/** Accepts `unix:///abs/path` or `/abs/path`; anything else is a configuration error. */
export function parseLocalSocket(value: string, heldBy: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (isAbsolute(value)) return value;
    throw new ConfigurationError(
      `${heldBy}=${value} is not a Docker socket: use unix:///path/to/docker.sock or an absolute socket path`,
    );
  }
  if (scheme === 'unix') {
    const path = value.slice('unix://'.length);
    if (isAbsolute(path)) return path;
    throw new ConfigurationError(
      `${heldBy}=${value} must name an absolute socket path, like unix:///var/run/docker.sock`,
    );
  }
  throw new ConfigurationError(
    `${heldBy}=${value} points at a ${scheme}:// engine; Analyst only runs sandboxes on a local Docker engine ` +
      `through its unix socket. Unset ${heldBy} or set it to unix:///var/run/docker.sock`,
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
