import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setSessionNiceness } from '../../src/workers/session-niceness.ts';

const autogroup = (pid: number | 'self') => readFileSync(`/proc/${pid}/autogroup`, 'utf8');

test("a detached process's session is weighed as background work; the server's is not", {
  skip: existsSync('/proc/self/autogroup') ? false : 'this kernel schedules without autogroups',
}, async () => {
  const own = autogroup('self');
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  try {
    assert.ok(child.pid);
    setSessionNiceness(child.pid, 10);
    assert.match(autogroup(child.pid), /nice 10$/m);
    assert.notEqual(autogroup(child.pid).split(' ')[0], own.split(' ')[0], 'a session of its own');
    assert.equal(autogroup('self'), own, "the server's own group is unchanged");
    // A process already gone is left alone, without an error.
    setSessionNiceness(2 ** 22 + 1, 10);
  } finally {
    child.kill('SIGKILL');
  }
});
