import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { followProgress } from '../../src/sandbox/image/debian-rootfs.ts';
import { docker, TEST_IMAGE, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

const STDLIB_IMAGE = 'analyst-sandbox-stdlib:test';

/**
 * An image with Python and nothing but its standard library, like python:3.12-slim, made
 * from the test image by deleting every third-party package (Docker Hub is not reachable).
 */
async function ensureStdlibImage(): Promise<void> {
  const context = await mkdtemp(join(tmpdir(), 'analyst-stdlib-'));
  try {
    await writeFile(
      join(context, 'Dockerfile'),
      `FROM ${TEST_IMAGE}\nRUN rm -rf /usr/lib/python3/dist-packages /usr/local/lib/python3*/dist-packages /opt/analyst\n`,
    );
    const tar = spawn('tar', ['-C', context, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stream = (await docker.buildImage(tar.stdout, {
      t: STDLIB_IMAGE,
    } as never)) as unknown as NodeJS.ReadableStream;
    await followProgress(docker, stream);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

describe('the kernel on a standard-library-only image', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    await ensureStdlibImage();
    sandbox = await testSandbox({ image: STDLIB_IMAGE });
    workspace = await tempWorkspace();
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });

  test('there really is no pandas, numpy or matplotlib', async () => {
    const result = await sandbox.runEphemeral({ code: 'import pandas' });
    assert.equal(result.status, 'error');
    assert.match(result.output, /ModuleNotFoundError: No module named 'pandas'/);
  });

  test('cells run, fail with the right line numbers, and time out', async () => {
    const ref = { id: 'stdlib-thread', workspace: workspace.ws };
    const ok = await sandbox.runCell(ref, {
      code: 'import sys, json\nprint(sys.version_info[:2] >= (3, 9), json.dumps({"ok": 1}))',
    });
    assert.equal(ok.output, 'True {"ok": 1}\n');
    const error = await sandbox.runCell(ref, { code: 'x = 1\ny = [][x]' });
    assert.match(error.output, /File "<cell>", line 2/);
    assert.match(error.output, /IndexError/);
    const slow = await sandbox.runCell(ref, { code: 'while True: pass', timeoutMs: 1000 });
    assert.equal(slow.status, 'timeout');
    const files = await sandbox.runCell(ref, {
      code: 'import csv\nwith open("out.csv", "w", newline="") as f:\n    csv.writer(f).writerow([1, 2])',
    });
    assert.deepEqual(
      files.artifacts.map((a) => a.path),
      ['out.csv'],
    );
  });

  test('stateful sessions and injected data work without third-party packages', async () => {
    const ref = { id: 'stdlib-stateful', workspace: workspace.ws, stateful: true };
    await sandbox.runCell(ref, { code: 'total = 40' });
    assert.equal((await sandbox.runCell(ref, { code: 'print(total + 2)' })).output, '42\n');
    const injected = await sandbox.runEphemeral({
      code: 'print(sum(r["v"] for r in data))',
      data: [{ v: 1 }, { v: 2 }],
    });
    assert.equal(injected.output, '3\n');
  });
});
