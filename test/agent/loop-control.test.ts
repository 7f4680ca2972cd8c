import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

describe('loop control: caps, upstream failures, cancel', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });
  const session = (id: string) => ({ id, workspace: workspace.ws });

  test('a model that never answers ends at the round cap with a clear note', async () => {
    const { server, model } = await scriptedModel({
      mode: 'match',
      turns: [{ when: {}, content: '<Analyze>Still thinking about it.</Analyze>' }],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Anything?'),
        sandbox,
        session: session('cap'),
        limits: { maxRounds: 4 },
      });
      const end = runEnd(events);
      assert.equal(end.status, 'capped');
      assert.match(end.reason!, /cap of 4 model rounds/);
      assert.equal(server.requests.length, 4);
      assert.ok(ofType(events, 'notice').some((n) => /cap of 4/.test(n.message)));
      // Each round continues from what the model said: no request is sent twice unchanged.
      const bodies = server.requests.map((r) => JSON.stringify((r.body as { messages: unknown }).messages));
      assert.equal(new Set(bodies).size, bodies.length);
    } finally {
      await server.close();
    }
  });

  test('finish_reason "length" is not re-sent forever: the run ends after three in a row', async () => {
    const { server, model } = await scriptedModel({
      mode: 'match',
      turns: [{ when: {}, content: '<Analyze>A very long thought that never ends', finish_reason: 'length' }],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('length'),
      });
      const end = runEnd(events);
      assert.equal(end.status, 'capped');
      assert.match(end.reason!, /token limit 3 rounds in a row/);
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  test('truncated code at the token limit is not run', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { content: '<Code>\nprint("half a cell', finish_reason: 'length' },
        { content: '")\n</Code>' },
        { expect: { last_role: 'execute', last_contains: 'half a cell' }, content: '<Answer>done</Answer>' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('trunc'),
      });
      assert.deepEqual(server.failures, []);
      // The second round continued the first; only the completed cell ran, once.
      assert.equal(ofType(events, 'execution-end').length, 1);
      assert.equal(runEnd(events).status, 'completed');
    } finally {
      await server.close();
    }
  });

  test('an upstream 500 is retried and the run succeeds', async () => {
    const { server, model } = await scriptedModel({
      turns: [{ status: 500, error: 'the GPU fell over' }, { content: '<Answer>fine</Answer>' }],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('retry'),
      });
      assert.equal(runEnd(events).answer, 'fine');
      assert.equal(server.requests.length, 2);
    } finally {
      await server.close();
    }
  });

  test('an upstream 400 fails the run with its message (no retry)', async () => {
    const { server, model } = await scriptedModel({
      turns: [{ status: 400, error: 'context length exceeded' }],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('bad'),
      });
      const end = runEnd(events);
      assert.equal(end.status, 'failed');
      const [error] = ofType(events, 'error');
      assert.equal(error!.code, 'model_error');
      assert.match(error!.message, /context length exceeded/);
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  });

  test('an upstream that hangs ends the run with a clear timeout error', async () => {
    const { server, model } = await scriptedModel({ turns: [{ hang: true }] }, { firstByteTimeoutMs: 700 });
    try {
      const started = Date.now();
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('hang'),
      });
      const end = runEnd(events);
      assert.equal(end.status, 'failed');
      const [error] = ofType(events, 'error');
      assert.equal(error!.code, 'model_timeout');
      assert.match(error!.message, /0\.7 s|700 ms/);
      assert.ok(Date.now() - started < 5000);
    } finally {
      await server.close();
    }
  });

  test('cancel during a long cell kills the cell within a second and ends the run', async () => {
    const { server, model } = await scriptedModel({
      turns: [{ content: '<Code>\nimport time\nprint("start", flush=True)\ntime.sleep(30)\n</Code>' }],
    });
    const controller = new AbortController();
    let abortedAt = 0;
    try {
      const events = await collect(
        {
          model,
          protocol: 'deepanalyze',
          messages: question('Go'),
          sandbox,
          session: session('cancel'),
          abortSignal: controller.signal,
        },
        (event) => {
          if (event.type === 'execution-output') {
            abortedAt = performance.now();
            controller.abort();
          }
        },
      );
      const elapsed = performance.now() - abortedAt;
      const end = runEnd(events);
      assert.equal(end.status, 'cancelled');
      assert.equal(ofType(events, 'execution-end')[0]!.result.status, 'cancelled');
      assert.ok(elapsed < 1000, `run ended ${elapsed} ms after cancel`);
    } finally {
      await server.close();
    }
  });

  test('cancel while the model streams stops the stream', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { content: '<Analyze>' + 'word '.repeat(400) + '</Analyze>', chunk_chars: 5, chunk_delay_ms: 20 },
      ],
    });
    const controller = new AbortController();
    try {
      const events = await collect(
        {
          model,
          protocol: 'deepanalyze',
          messages: question('Go'),
          sandbox,
          session: session('cancel2'),
          abortSignal: controller.signal,
        },
        (event) => {
          if (event.type === 'text-delta') controller.abort();
        },
      );
      assert.equal(runEnd(events).status, 'cancelled');
      assert.ok(ofType(events, 'text-delta').length < 10);
    } finally {
      await server.close();
    }
  });

  test('the wall-clock cap ends a run that runs long', async () => {
    const { server, model } = await scriptedModel({
      turns: [{ content: '<Code>\nimport time\ntime.sleep(10)\n</Code>' }],
    });
    try {
      const started = Date.now();
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Go'),
        sandbox,
        session: session('time'),
        limits: { maxDurationMs: 1500 },
      });
      const end = runEnd(events);
      assert.equal(end.status, 'capped');
      assert.match(end.reason!, /time cap/);
      assert.ok(Date.now() - started < 5000);
    } finally {
      await server.close();
    }
  });
});
