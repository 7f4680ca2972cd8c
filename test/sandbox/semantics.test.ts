import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { containersOfInstance, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

describe('cell semantics', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
  });
  after(async () => {
    await sandbox.close();
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
    await workspace.cleanup();
  });

  const session = (stateful = false) => ({
    id: `sem-${randomBytes(4).toString('hex')}`,
    workspace: workspace.ws,
    stateful,
  });

  test('stateless cells share no variables, and start in /workspace', async () => {
    const ref = session();
    try {
      const first = await sandbox.runCell(ref, { code: 'x = 41\nimport os\nprint(os.getcwd())' });
      assert.equal(first.output, '/workspace\n');
      const second = await sandbox.runCell(ref, { code: 'print(x + 1)' });
      assert.equal(second.status, 'error');
      assert.match(second.output, /NameError: name 'x' is not defined/);
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('an exception is data: its name, value, the line of the cell and the traceback', async () => {
    const ref = session();
    try {
      const failed = await sandbox.runCell(ref, {
        code: 'print("before")\nrows = {"a": 1}\n\nprint(rows["missing"])',
      });
      assert.equal(failed.status, 'error');
      assert.deepEqual(
        [failed.error?.name, failed.error?.value, failed.error?.line],
        ['KeyError', "'missing'", 4],
      );
      assert.match(failed.error!.traceback.join(''), /File "<cell>", line 4, in <module>/);
      assert.ok(
        failed.output.endsWith(failed.error!.traceback.join('')),
        'the output ends with the same traceback',
      );
      const fine = await sandbox.runCell(ref, { code: 'print(1)' });
      assert.equal(fine.error, undefined);
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('a cell that comes while the next worker still rehearses runs whole, as a fresh process', async () => {
    // Each stateless cell stops the rehearsal of the worker it lands on. The pauses between
    // cells sweep the worker's whole preparation (fork, set-up, each rehearsal phase), so some
    // cells land mid-phase: each must still get its output, a clean namespace, and signals as
    // any Python process has them.
    const ref = session();
    const code = [
      'import signal, pandas as pd',
      "print(signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL, pd.DataFrame({'a': [1, 2]}).sum().a,",
      "      __name__, sorted(k for k in globals() if not k.startswith('__')))",
    ].join('\n');
    try {
      for (let i = 0; i < 30; i++) {
        await new Promise((r) => setTimeout(r, i * 2));
        const result = await sandbox.runCell(ref, { code });
        assert.deepEqual(
          [result.status, result.output, result.error],
          ['ok', "True 3 __main__ ['pd', 'signal']\n", undefined],
          `cell ${i}`,
        );
      }
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('stateful cells keep their variables, also after an error', async () => {
    const ref = session(true);
    try {
      await sandbox.runCell(ref, {
        code: 'import pandas as pd\nframe = pd.DataFrame({"a": [1, 2, 3]})\ntotal = 41',
      });
      const failed = await sandbox.runCell(ref, { code: 'total += 1\nraise ValueError("boom")' });
      assert.equal(failed.status, 'error');
      const next = await sandbox.runCell(ref, { code: 'print(total, frame.a.sum())' });
      assert.equal(next.output, '42 6\n');
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('a stateful cell that times out keeps the variables when it can be interrupted', async () => {
    const ref = session(true);
    try {
      await sandbox.runCell(ref, { code: 'kept = "yes"' });
      const slow = await sandbox.runCell(ref, { code: 'import time\ntime.sleep(60)', timeoutMs: 1000 });
      assert.equal(slow.status, 'timeout');
      const next = await sandbox.runCell(ref, { code: 'print(kept)' });
      assert.equal(next.output, 'yes\n');
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test("files persist across a session's cells and show up on the host", async () => {
    const ref = session();
    try {
      const write = await sandbox.runCell(ref, { code: 'open("notes.txt", "w").write("kept")' });
      assert.deepEqual(write.artifacts, [
        { path: 'notes.txt', bytes: 4, mime: 'text/plain', change: 'created' },
      ]);
      const read = await sandbox.runCell(ref, { code: 'print(open("notes.txt").read())' });
      assert.equal(read.output, 'kept\n');
      assert.equal(await readFile(join(workspace.dir, 'notes.txt'), 'utf8'), 'kept');
      const modify = await sandbox.runCell(ref, { code: 'open("notes.txt", "a").write(" more")' });
      assert.deepEqual(
        modify.artifacts.map((a) => [a.path, a.change]),
        [['notes.txt', 'modified']],
      );
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test("tracebacks point at the user's own line numbers, with no kernel frames", async () => {
    const ref = session();
    try {
      const result = await sandbox.runCell(ref, { code: 'a = 1\nb = 0\n\nprint(a / b)\n' });
      assert.equal(result.status, 'error');
      assert.equal(result.exit_code, 1);
      assert.match(result.output, /File "<cell>", line 4, in <module>\n\s+print\(a \/ b\)/);
      assert.match(result.output, /ZeroDivisionError: division by zero/);
      assert.doesNotMatch(result.output, /run_code|kernel|zygote|exec\(/);
      const syntax = await sandbox.runCell(ref, { code: 'x = 1\nif x\n    print(x)' });
      assert.match(syntax.output, /line 2/);
      assert.match(syntax.output, /SyntaxError/);
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test("a prelude and an epilogue run unseen around the cell, in its namespace, with the cell's own line numbers", async () => {
    const ref = session();
    try {
      const result = await sandbox.runCell(ref, {
        prelude: 'def hand(**values):\n    print("HANDED", sorted(values.items()))',
        code: 'total = 40 + 2\nprint("total", total)',
        epilogue: 'hand(total=total)',
      });
      assert.equal(result.status, 'ok');
      assert.equal(result.output, "total 42\nHANDED [('total', 42)]\n");
      const failed = await sandbox.runCell(ref, {
        prelude: 'def hand(**values):\n    print("HANDED")',
        code: 'x = 1\n\nprint(1 / 0)',
        epilogue: 'hand(x=x)',
      });
      assert.equal(failed.status, 'error');
      assert.equal(failed.error?.line, 3, 'the line of the cell, not counting the prelude');
      assert.match(failed.output, /File "<cell>", line 3/);
      assert.doesNotMatch(failed.output, /HANDED/, 'the epilogue runs only after the cell succeeded');
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('stdout and stderr are interleaved in the order written', async () => {
    const ref = session();
    try {
      const result = await sandbox.runCell(ref, {
        code: 'import sys\nprint("one")\nprint("two", file=sys.stderr)\nprint("three")\nsys.stderr.write("four\\n")',
      });
      assert.equal(result.output, 'one\ntwo\nthree\nfour\n');
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('output streams while the cell runs', async () => {
    const ref = session();
    const seen: Array<{ text: string; at: number }> = [];
    try {
      await sandbox.runCell(ref, { code: 'print(0)' });
      const started = Date.now();
      await sandbox.runCell(ref, {
        code: 'import time\nprint("first", flush=True)\ntime.sleep(1.5)\nprint("second")',
        onOutput: (text) => seen.push({ text, at: Date.now() - started }),
      });
      const ended = Date.now() - started;
      assert.equal(seen.map((s) => s.text).join(''), 'first\nsecond\n');
      assert.ok(
        ended - seen[0]!.at >= 1000,
        `first output came ${seen[0]!.at} ms in, the cell ended at ${ended} ms`,
      );
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('a figure left open becomes a PNG artifact; saved figures are not duplicated', async () => {
    const ref = session();
    try {
      const result = await sandbox.runCell(ref, {
        code:
          'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [2, 4, 1])\nplt.title("open figure")\n' +
          'fig2 = plt.figure()\nplt.bar(["a"], [1])\nfig2.savefig("saved.png")',
      });
      assert.equal(result.status, 'ok', result.output);
      const paths = result.artifacts.map((a) => a.path).sort();
      assert.deepEqual(paths, ['figure-1.png', 'saved.png']);
      const png = await readFile(join(workspace.dir, 'figure-1.png'));
      assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
      assert.equal(result.artifacts.find((a) => a.path === 'figure-1.png')!.mime, 'image/png');
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('Chinese text survives output and renders in chart labels with a CJK font', async () => {
    const ref = session();
    try {
      const printed = await sandbox.runCell(ref, { code: 'print("你好，世界：销售额")' });
      assert.equal(printed.output, '你好，世界：销售额\n');
      const chart = await sandbox.runCell(ref, {
        code:
          'import warnings\nwarnings.simplefilter("always")\nimport matplotlib.pyplot as plt\nfrom matplotlib import font_manager\n' +
          'fig, ax = plt.subplots()\nax.bar(["北京", "上海"], [3, 5])\nax.set_title("各城市销售额")\nfig.savefig("cities.png")\n' +
          'print(font_manager.findfont(font_manager.FontProperties(family="Noto Sans CJK JP")))',
      });
      assert.equal(chart.status, 'ok', chart.output);
      assert.doesNotMatch(chart.output, /Glyph \d+ .* missing|findfont: Font family/);
      assert.match(chart.output, /NotoSansCJK/);
      assert.ok(chart.artifacts.some((a) => a.path === 'cities.png'));
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('the data-science libraries are preloaded and importable', async () => {
    const ref = session();
    try {
      const result = await sandbox.runCell(ref, {
        code: 'import pandas, numpy, scipy, matplotlib, seaborn, sklearn, statsmodels, openpyxl\nprint("ok")',
      });
      assert.equal(result.output, 'ok\n', result.output);
    } finally {
      await sandbox.closeSession(ref.id);
    }
  });

  test('ephemeral cells get data and results as variables and in /workspace/data.json', async () => {
    const result = await sandbox.runEphemeral({
      code:
        'import json\nprint(len(data), data[0]["rid"], results[0]["id"])\n' +
        'print(json.load(open("/workspace/data.json"))["data"][1]["v"])',
      data: [
        { rid: 'r1', v: 10 },
        { rid: 'r2', v: 20 },
      ],
      results: [{ id: 'call_1', sql: 'select 1', rows: [] }],
      sourceQueryIds: ['call_1'],
    });
    assert.equal(result.output, '2 r1 call_1\n20\n');
    assert.deepEqual(result.source_query_ids, ['call_1']);
    assert.equal(result.input_complete, true);
    assert.deepEqual(result.artifacts, []);
  });

  test('a 6 MB input and a 1 MB cell reach the kernel whole (frames far larger than one read)', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({ i, text: 'x'.repeat(80) }));
    const padding = `# ${'p'.repeat(1_000_000)}\n`;
    const result = await sandbox.runEphemeral({
      code: `${padding}print(len(data), data[-1]["i"], sum(len(r["text"]) for r in data))`,
      data: rows,
    });
    assert.equal(result.input_complete, true);
    assert.equal(result.output, '60000 59999 4800000\n');
  });
});
