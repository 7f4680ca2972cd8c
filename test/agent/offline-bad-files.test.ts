import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileProblem } from '../../src/contract/file-problems.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { BAD_FILES } from '../helpers/bad-files.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { askOffline } from './offline-run.ts';

const GOOD = 'city,visits\nOslo,10\nLima,30\nPune,20\n';

/**
 * Bad files in the offline analyst's analysis (issue 31, defect 5): the same statement as the
 * preview (test/server/bad-files.test.ts checks the preview against the same sentences), and
 * never an answer from another file passed off as the answer about this one. Real sandbox.
 */
describe('the offline analyst on bad files', { timeout: 600_000 }, () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(async () => sandbox.close());

  async function ask(files: Record<string, Uint8Array | string>, text: string) {
    const workspace = await tempWorkspace();
    try {
      for (const [name, body] of Object.entries(files)) await workspace.ws.write(name, Buffer.from(body));
      return await askOffline(sandbox, workspace.ws, text);
    } finally {
      await workspace.cleanup();
    }
  }

  test('a question about a malformed CSV beside a good one: what is wrong with it, and nothing from the other', async () => {
    const result = await ask(
      { 'malformed.csv': BAD_FILES['malformed.csv'], 'good.csv': GOOD },
      'What is the average of b in malformed.csv?',
    );
    assert.equal(result.summary, fileProblem.tooManyFields('malformed.csv', 4, 5, 3));
    assert.doesNotMatch(result.answer, /ParserError|Oslo|Lima|visits/);
    assert.equal(result.cells.length, 1, 'only the look at the data ran');
    assert.equal(result.events.filter((e) => e.type === 'artifact-created').length, 0, 'no chart');
  });

  test('a binary file named .csv and an empty one: each said plainly', async () => {
    const binary = await ask({ 'binary.csv': BAD_FILES['binary.csv'] }, 'How many rows are there?');
    assert.equal(binary.summary, fileProblem.notText('binary.csv'));
    const empty = await ask({ 'empty.csv': BAD_FILES['empty.csv'] }, 'How many rows are there?');
    assert.equal(empty.summary, fileProblem.empty('empty.csv'));
  });

  test('a question that names no file: the problem first, then which file the answer uses', async () => {
    const result = await ask(
      { 'malformed.csv': BAD_FILES['malformed.csv'], 'good.csv': GOOD },
      'What is the total of visits?',
    );
    const [problem, uses, summary] = result.answer.split('\n\n');
    assert.equal(problem, fileProblem.tooManyFields('malformed.csv', 4, 5, 3));
    assert.equal(uses, 'What follows uses only good.csv.');
    assert.match(summary ?? '', /60/);
  });

  test('"Are there missing values?" with none: said so, and no empty chart; with some: a chart of them', async () => {
    const charts = (result: Awaited<ReturnType<typeof ask>>) =>
      result.events.filter((e) => e.type === 'artifact-created').length;
    const none = await ask({ 'good.csv': GOOD }, 'Are there missing values?');
    assert.match(none.summary, /no missing values/);
    assert.equal(charts(none), 0);
    assert.match(none.output, /No chart: there is nothing to draw/);
    const some = await ask({ 'gaps.csv': 'city,visits\nOslo,\nLima,30\n,20\n' }, 'Are there missing values?');
    assert.match(some.summary, /\*\*2\*\* missing values/);
    assert.equal(charts(some), 1);
  });
});
