import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { prefixedReader, withArtifactPrefix } from '../../src/report/relocate.ts';

test('artifact paths get the prefix, and the reader strips it again', async () => {
  const artifact = { path: 'chart.png', bytes: 3, mime: 'image/png', change: 'created' as const };
  const events: AgentEvent[] = [
    { type: 'artifact-created', round: 1, cell_id: 'c', artifact },
    {
      type: 'execution-end',
      round: 1,
      cell_id: 'c',
      result: {
        status: 'ok',
        exit_code: 0,
        output: '',
        output_bytes: 0,
        output_complete: true,
        input_complete: true,
        duration_ms: 1,
        artifacts: [artifact],
        source_query_ids: [],
      },
    },
  ];
  const moved = withArtifactPrefix(events, '../');
  assert.equal((moved[0] as Extract<AgentEvent, { type: 'artifact-created' }>).artifact.path, '../chart.png');
  assert.equal(
    (moved[1] as Extract<AgentEvent, { type: 'execution-end' }>).result.artifacts[0]!.path,
    '../chart.png',
  );
  assert.equal(artifact.path, 'chart.png', 'the original events are not changed');
  const read = prefixedReader('../', async (path) => Buffer.from(path));
  assert.equal((await read('../chart.png'))?.toString(), 'chart.png');
  assert.equal(await read('/etc/passwd'), undefined);
  assert.equal(withArtifactPrefix(events, ''), events);
});
