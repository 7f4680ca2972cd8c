import type Docker from 'dockerode';
import { LABELS, leaseExpired, ownerIsGone, type ProcessIdentity } from './labels.ts';

/**
 * Removes Analyst containers that nobody will use again: those whose lease has passed,
 * and those whose owning process is gone (a crashed or killed server). Containers of a
 * live process that are still within their lease are left alone, even another server's.
 */
export async function reapContainers(
  docker: Docker,
  options: { self: ProcessIdentity; now: Date; inUse: ReadonlySet<string> },
): Promise<string[]> {
  const containers = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.managed}=true`] },
  });
  const removed: string[] = [];
  await Promise.all(
    containers.map(async (info) => {
      const name = (info.Names?.[0] ?? info.Id).replace(/^\//, '');
      if (options.inUse.has(name)) return;
      const labels = info.Labels ?? {};
      const mine = labels[LABELS.instance] === options.self.instance;
      const expired = leaseExpired(labels, options.now);
      if (!expired && (mine || !ownerIsGone(labels, options.self))) return;
      try {
        await docker.getContainer(info.Id).remove({ force: true });
        removed.push(name);
      } catch {
        // Removed meanwhile (AutoRemove) or the engine went away; the next pass retries.
      }
    }),
  );
  return removed.sort();
}
