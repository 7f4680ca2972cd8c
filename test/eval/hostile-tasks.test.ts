import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadDs1000 } from '../../src/eval/ds1000/loader.ts';
import { ds1000Suite } from '../../src/eval/ds1000/suite.ts';
import { runEval } from '../../src/eval/runner.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { testSandbox } from '../helpers/sandbox.ts';

/** A DS-1000-shaped task: the answer must leave result == 42. */
const CONTEXT =
  'def test_execution(solution):\n    env = {}\n    exec(solution, env)\n    assert env["result"] == 42\n';

const ANSWERS: Array<[id: string, code: string]> = [
  ['loop', 'while True:\n    pass\n'],
  ['flood', 'import sys\nfor _ in range(100):\n    sys.stdout.write("x" * 1_000_000)\n'],
  [
    'delete',
    'import os, shutil\nfor root in ("/workspace", "/tmp", "/usr"):\n    shutil.rmtree(root, ignore_errors=True)\n' +
      'os.system("rm -rf / 2>/dev/null")\nresult = 41\n',
  ],
  [
    'leave',
    'import subprocess\nopen("/workspace/leak.txt", "w").write("x")\nopen("/tmp/leak.txt", "w").write("x")\n' +
      'subprocess.Popen(["sleep", "1000"])\nimport numpy\nnumpy.leaked = True\nresult = 42\n',
  ],
  [
    'check',
    'import os, numpy\nassert not os.listdir("/workspace"), os.listdir("/workspace")\nassert not os.path.exists("/tmp/leak.txt")\n' +
      'assert not hasattr(numpy, "leaked")\n' +
      'cmds = [open(f"/proc/{p}/cmdline", "rb").read() for p in os.listdir("/proc") if p.isdigit()]\n' +
      'assert not any(c.startswith(b"sleep") for c in cmds), cmds\nassert os.path.exists("/usr/bin/python3")\nresult = 42\n',
  ],
  ['memory', 'hog = b"x" * 2_000_000_000\nresult = 42\n'],
  ['after', 'result = 6 * 7\n'],
];

describe('hostile DS-1000 answers are contained and scored as failed; the run goes on', () => {
  let sandbox: DockerSandboxManager;
  let dir: string;
  before(async () => {
    sandbox = await testSandbox();
    dir = await mkdtemp(join(tmpdir(), 'analyst-eval-hostile-'));
  });
  after(async () => {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('loop forever, print 100 MB, delete files, leave files and processes, exhaust memory', async () => {
    const data = join(dir, 'tasks.jsonl');
    await writeFile(
      data,
      ANSWERS.map(([id]) =>
        JSON.stringify({
          prompt: 'make result 42',
          reference_code: 'result = 42\n',
          code_context: CONTEXT,
          metadata: { problem_id: id, library: 'Hostile', perturbation_type: 'Origin' },
        }),
      ).join('\n'),
    );
    const suite = ds1000Suite({ programTimeoutMs: 10_000 });
    const tasks = await loadDs1000(data);
    const out = join(dir, 'out');
    const summary = await runEval({
      suite,
      tasks,
      answers: { source: 'hostile', byId: new Map(ANSWERS) },
      sandbox,
      workers: 1, // one container, tasks in order: each one runs where the one before ran
      outDir: out,
    });
    const lines = (await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n');
    const results = new Map(
      lines.map((l) => JSON.parse(l) as { id: string; status: string; reason: string }).map((r) => [r.id, r]),
    );
    const status = (id: string) => `${results.get(id)?.status}: ${results.get(id)?.reason}`;
    assert.match(status('loop'), /^failed: the cell ran past its 10 s limit/);
    assert.match(
      status('flood'),
      /^failed: the program raised; its traceback is past the output cap \(1000\d{5} bytes/,
    );
    // Deleting every file it can reach takes long on a busy machine: failed either way.
    assert.match(status('delete'), /^failed: (AssertionError|the cell ran past)/);
    assert.match(status('leave'), /^passed/);
    assert.match(
      status('check'),
      /^passed/,
      'nothing of the task before is left: files, /tmp, processes, module state',
    );
    assert.match(status('memory'), /^failed/);
    assert.match(status('after'), /^passed/);
    assert.equal(summary.tasks, ANSWERS.length);
    assert.equal(summary.errors, 0);
    const flood = JSON.parse(await readFile(join(out, 'traces', 'flood.json'), 'utf8'));
    assert.ok(flood.verdict.output_bytes >= 100_000_000, `counted ${flood.verdict.output_bytes} bytes`);
    assert.ok(flood.verdict.output.length <= 41_000, 'the output kept is capped');
  });
});
