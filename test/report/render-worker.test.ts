import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderInWorker, renderWorkerCounts } from '../../src/report/worker/render-in-worker.ts';
import type { RenderJob } from '../../src/report/worker/render-worker.ts';

describe('report rendering in worker threads', () => {
  test('many reports at once: all are made, never more workers than cores at a time', async () => {
    const job = {
      record: {
        thread: { id: 'thread-x', title: 'Sales', created_at: 0, metadata: {} },
        messages: [],
        runs: [],
        events: [],
      },
      linkPrefix: '/v1/threads/thread-x/files/',
      files: {},
      formats: ['md'],
      imageBytes: 0,
    } as unknown as RenderJob;
    const { limit } = renderWorkerCounts();
    const made = await Promise.allSettled(Array.from({ length: limit * 3 + 1 }, () => renderInWorker(job)));
    assert.equal(made.length, limit * 3 + 1);
    // Each one was made, and none was left waiting.
    for (const outcome of made)
      if (outcome.status === 'rejected') assert.match(String(outcome.reason), /report/);
    assert.ok(renderWorkerCounts().mostAtOnce <= limit, `${renderWorkerCounts().mostAtOnce} > ${limit}`);
    assert.ok(renderWorkerCounts().mostAtOnce >= 1);
  });
});
