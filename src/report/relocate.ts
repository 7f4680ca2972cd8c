import type { AgentEvent } from '../agent/events.ts';
import type { Artifact } from '../sandbox/sandbox.ts';
import type { ReadArtifact } from './record.ts';

/**
 * Reports link artifacts by the path they are given. When a report is read from somewhere
 * other than the workspace root (a sibling folder, a `reports/` subfolder, a download URL),
 * its events name each artifact as `prefix + path`, and the reader strips the prefix again.
 */
export function withArtifactPrefix(events: AgentEvent[], prefix: string): AgentEvent[] {
  if (!prefix) return events;
  const moved = (artifact: Artifact): Artifact => ({ ...artifact, path: `${prefix}${artifact.path}` });
  return events.map((event) => {
    if (event.type === 'artifact-created') return { ...event, artifact: moved(event.artifact) };
    if (event.type === 'execution-end') {
      return { ...event, result: { ...event.result, artifacts: event.result.artifacts.map(moved) } };
    }
    return event;
  });
}

/** A reader for paths made by `withArtifactPrefix`: anything without the prefix is not ours. */
export function prefixedReader(prefix: string, read: ReadArtifact): ReadArtifact {
  return async (path) => (path.startsWith(prefix) ? read(path.slice(prefix.length)) : undefined);
}
