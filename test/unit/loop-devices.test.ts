import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loopDevicesWanted } from '../../src/workspace/helper/loop-devices.ts';

test('the helper makes loop device nodes past the highest one the host has (or 256)', async () => {
  const sys = await mkdtemp(join(tmpdir(), 'analyst-sysblock-'));
  try {
    assert.equal(loopDevicesWanted(sys), 256, 'none yet');
    for (const name of ['loop0', 'loop7', 'loop319', 'sda', 'loopx']) await mkdir(join(sys, name));
    assert.equal(loopDevicesWanted(sys), 384, '320 in use by others: nodes up to loop383');
    assert.equal(loopDevicesWanted(join(sys, 'missing')), 256, 'no sysfs');
  } finally {
    await rm(sys, { recursive: true, force: true });
  }
});
