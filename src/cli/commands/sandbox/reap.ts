import { randomHex } from '../../../ids/random-hex.ts';
import { currentProcessIdentity, LABELS } from '../../../sandbox/docker/labels.ts';
import { reapContainers } from '../../../sandbox/docker/reaper.ts';
import { parseFlags } from '../../args.ts';
import type { CommandIO } from '../../io.ts';
import { engineFromEnvironment, requireEngine } from './shared.ts';

export const usage = 'analyst sandbox reap [--all] [--json]';
export const summary = 'remove expired or orphaned sandbox containers (--all: every Analyst container)';

export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values } = parseFlags(argv, { all: { type: 'boolean' }, json: { type: 'boolean' } }, usage);
  const engine = engineFromEnvironment(io);
  await requireEngine(engine.docker, engine.endpoint);
  let removed: string[];
  if (values.all) {
    const containers = await engine.docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.managed}=true`] },
    });
    removed = [];
    for (const info of containers) {
      await engine.docker
        .getContainer(info.Id)
        .remove({ force: true })
        .then(() => removed.push((info.Names?.[0] ?? info.Id).replace(/^\//, '')))
        .catch(() => {});
    }
  } else {
    const self = currentProcessIdentity(`reap-${randomHex(6)}`);
    removed = await reapContainers(engine.docker, { self, now: new Date(), inUse: new Set() });
  }
  if (values.json) io.stdout(`${JSON.stringify({ removed })}\n`);
  else
    io.stdout(
      removed.length === 0 ? 'nothing to reap\n' : `removed ${removed.length}: ${removed.join(' ')}\n`,
    );
  return 0;
}
