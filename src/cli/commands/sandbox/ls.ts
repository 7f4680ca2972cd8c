import type Docker from 'dockerode';
import { LABELS } from '../../../sandbox/docker/labels.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment, requireEngine } from './shared.ts';

export const usage = 'analyst sandbox ls [--json]';
export const summary = "list Analyst's sandbox containers";

export interface SandboxContainerInfo {
  name: string;
  kind: string;
  owner: string;
  state: string;
  created_at: string;
  lease_expires_at: string;
}

export async function listSandboxContainers(docker: Docker): Promise<SandboxContainerInfo[]> {
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.managed}=true`] },
  });
  return containers
    .map((info) => ({
      name: (info.Names?.[0] ?? info.Id).replace(/^\//, ''),
      kind: info.Labels?.[LABELS.kind] ?? '?',
      owner: info.Labels?.[LABELS.owner] ?? '?',
      state: info.State,
      created_at: new Date(info.Created * 1000).toISOString(),
      lease_expires_at: info.Labels?.[LABELS.leaseExpiresAt] ?? '?',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } }, usage);
  const engine = engineFromEnvironment(io);
  await requireEngine(engine.docker, engine.endpoint);
  const rows = await listSandboxContainers(engine.docker);
  if (values.json) {
    io.stdout(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout('no Analyst sandbox containers\n');
    return 0;
  }
  const header = ['NAME', 'KIND', 'OWNER', 'STATE', 'CREATED', 'LEASE EXPIRES'];
  const table = [
    header,
    ...rows.map((r) => [r.name, r.kind, r.owner, r.state, r.created_at, r.lease_expires_at]),
  ];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table)
    io.stdout(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  return 0;
}
