import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { TEST_IMAGE } from '../helpers/sandbox.ts';

/**
 * `analyst exec --json … | head -c 100`: the reader closes the pipe after 100 bytes, while
 * the ExecResult is still being written.
 */
describe('a closed stdout', () => {
  test('analyst exec --json ends quietly when its reader stops reading', async () => {
    const child = spawn(process.execPath, ['bin/analyst.js', 'exec', '--json', '-'], {
      env: { ...process.env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let received = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 100) child.stdout.destroy(); // what `head -c 100` does
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = new Promise<number | null>((resolve) => child.on('close', resolve));
    // 39,000 control characters: 234 KB of JSON once escaped (`\u0001`), more than a pipe
    // holds after the reader took its first 64 KiB.
    child.stdin.end('import sys\nsys.stdout.write(chr(1) * 39000)');
    assert.equal(await code, 0, stderr);
    assert.ok(received >= 100);
    assert.doesNotMatch(stderr, /EPIPE|Error|at /, 'no stack trace on stderr');
  });
});
