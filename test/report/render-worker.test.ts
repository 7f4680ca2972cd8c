import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  RenderWorkers,
  renderInWorker,
  renderWorkerCounts,
} from '../../src/report/worker/render-in-worker.ts';
import type { RenderJob } from '../../src/report/worker/render-worker.ts';
import { execResult, RunBuilder, record, salesRecord } from './fixtures.ts';

const job = (history = salesRecord()): RenderJob => ({
  record: history,
  linkPrefix: '/v1/threads/thread-x/files/',
  files: {},
  formats: ['md', 'html', 'ipynb'],
  imageBytes: 0,
});

describe('report rendering in worker threads', () => {
  const workers: RenderWorkers[] = [];
  const pool = (options: ConstructorParameters<typeof RenderWorkers>[0]) => {
    const made = new RenderWorkers(options);
    workers.push(made);
    return made;
  };
  after(() => Promise.all(workers.map((w) => w.close())));

  test('many reports at once: all are made, by at most one worker per core, started once each', async () => {
    const { limit } = renderWorkerCounts();
    const made = await Promise.all(Array.from({ length: limit * 3 + 1 }, () => renderInWorker(job())));
    assert.equal(made.length, limit * 3 + 1);
    for (const documents of made) assert.match(documents.md ?? '', /哪个城市的销售额最高/);
    const counts = renderWorkerCounts();
    assert.ok(counts.mostAtOnce <= limit, `${counts.mostAtOnce} > ${limit}`);
    assert.ok(counts.mostAtOnce >= 1);
    // The workers live on between reports: never one started per report.
    assert.ok(counts.started <= limit, `${counts.started} workers started for ${limit * 3 + 1} reports`);
  });

  test('a report that fails in the worker is an error of its own; the worker serves the next', async () => {
    const workers = pool({ workers: 1 });
    const broken = { ...job(), record: { events: [{ type: 'run-start' }] } } as unknown as RenderJob;
    await assert.rejects(workers.render(broken), /the report could not be made/);
    const next = await workers.render(job());
    assert.match(next.md ?? '', /哪个城市的销售额最高/);
    assert.equal(workers.slots.started, 1);
  });

  test('a report over its time is ended with its worker; a fresh one makes the next', async () => {
    const workers = pool({ workers: 1 });
    await assert.rejects(workers.render(job(), 1), /the report took longer than 0.001 s to make/);
    const next = await workers.render(job());
    assert.match(next.html ?? '', /<html/i);
    assert.equal(workers.slots.started, 2);
  });

  test('a report over its memory is ended with its worker; a fresh one makes the next', async () => {
    const workers = pool({ workers: 1, memoryMb: 16 });
    // 64 cells of 1 MB of output each: Markdown, HTML and the notebook hold it several times.
    const run = new RunBuilder('big');
    for (let i = 0; i < 64; i++)
      run.cell({ id: `c${i}`, code: 'print(x)', result: execResult({ output: `${i}`.repeat(1 << 20) }) });
    const big = job(record('Big', 'big', run.answer('done')));
    await assert.rejects(workers.render(big), /the report needs more than 16 MiB to make/);
    const next = await workers.render(job());
    assert.match(next.md ?? '', /哪个城市的销售额最高/);
    assert.equal(workers.slots.started, 2);
  });
});
