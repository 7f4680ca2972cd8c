import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as analyst from '../../src/index.ts';

test('the library exports its public surface and nothing undefined', () => {
  for (const name of [
    'createDockerSandbox',
    'runAnalysis',
    'createService',
    'loadModelRegistry',
    'startScriptedModel',
    'renderNotebook',
    'SqliteStore',
  ]) {
    assert.equal(typeof (analyst as Record<string, unknown>)[name], 'function', name);
  }
  for (const [name, value] of Object.entries(analyst))
    assert.notEqual(value, undefined, `${name} is exported but undefined`);
  assert.equal(analyst.DEFAULT_LIMITS.memoryBytes, 512 * 1024 * 1024);
});
