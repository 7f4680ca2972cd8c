import { type RunConnections, runConnections } from '../agent/connections.ts';
import { loadConnectionsConfig } from '../connections/config.ts';
import { ConnectionRegistry } from '../connections/registry.ts';
import { InvalidInputError } from '../errors/index.ts';

/**
 * `--connection ID` of `analyst run` and `analyst chat`: connections of the user's own
 * ANALYST_CONNECTIONS_FILE. On the command line the user is the operator, so every connection
 * of the file is theirs (its `keys` apply to a server's API keys only).
 */
export function cliConnections(
  env: Record<string, string | undefined>,
  ids: readonly string[] | undefined,
): { connections?: RunConnections; close(): Promise<void> } {
  if (!ids?.length) return { close: async () => {} };
  const configs = loadConnectionsConfig(env).map((c) => ({ ...c, keys: 'all' as const }));
  if (!configs.length) {
    throw new InvalidInputError(
      '--connection needs ANALYST_CONNECTIONS_FILE: a JSON file {"connections": [ … ]} (see docs/connections.md)',
      { param: 'connection' },
    );
  }
  const registry = new ConnectionRegistry(configs);
  for (const id of ids) {
    if (!configs.some((c) => c.id === id)) {
      throw new InvalidInputError(
        `--connection ${id}: no such connection in ANALYST_CONNECTIONS_FILE (it has: ${configs.map((c) => c.id).join(', ')})`,
        { param: 'connection' },
      );
    }
  }
  return { connections: runConnections(registry, 'local', ids), close: () => registry.close() };
}
