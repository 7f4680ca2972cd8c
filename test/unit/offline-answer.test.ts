import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composeOfflineAnswer } from '../../src/agent/offline/compose-answer.ts';

test('when the profiling code could not run, the answer says why instead of "no data"', () => {
  const answer = composeOfflineAnswer(
    'What drives sales?',
    undefined,
    'unavailable: no Docker engine answers at /var/run/docker.sock',
  );
  assert.match(answer, /could not run.*no Docker engine answers/);
  assert.doesNotMatch(answer, /no data files/);
});

test('an empty workspace is named as such, in the language of the question', () => {
  assert.match(
    composeOfflineAnswer('Trends?', { tables: [], notes: [], charts: [], skipped: [] }),
    /no data files/,
  );
  assert.match(composeOfflineAnswer('趋势如何？', undefined, 'timeout: 30 s'), /没能运行/);
});
