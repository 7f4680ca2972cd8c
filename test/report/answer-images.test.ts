import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderHtmlReport, renderMarkdownReport, renderNotebook } from '../../src/report/index.ts';
import { artifactForDestination, resolveProseImages } from '../../src/report/prose-images.ts';
import { prefixedReader, withArtifactPrefix } from '../../src/report/relocate.ts';
import { artifact, execResult, filesReader, PNG, PNG_BASE64, RunBuilder, record } from './fixtures.ts';

/**
 * The chart an answer names sits beside the answer in every document, and a document
 * downloaded alone shows it without the workspace (issue 31, defect 2).
 */
function chartRecord(answer: string) {
  const run = new RunBuilder('Which region sells most?')
    .cell({
      id: 'c1',
      code: "plt.savefig('sales_by_region.png')",
      result: execResult({
        output: 'north 40\n',
        artifacts: [
          artifact('sales_by_region.png', PNG.length, 'image/png'),
          artifact('other.png', PNG.length, 'image/png'),
        ],
      }),
    })
    .answer(answer);
  return record('Sales', 'Which region sells most?', run);
}
const files = () => filesReader({ 'sales_by_region.png': PNG, 'other.png': PNG });
const ANSWER =
  '## Sales\n\nNorth sells most (40).\n\n![Sales by region](sales_by_region.png)\n\nThat is all.';

describe("an answer's charts in documents", () => {
  test('the HTML report embeds the chart inside the answer, before the appendix, and lists it once', async () => {
    const html = await renderHtmlReport(chartRecord(ANSWER), files());
    assert.doesNotMatch(html, /image not embedded/);
    const image = `<img src="data:image/png;base64,${PNG_BASE64}" alt="Sales by region" />`;
    const at = html.indexOf(image);
    assert.ok(at > html.indexOf('North sells most'), 'the chart is in the answer');
    assert.ok(at < html.indexOf('That is all.'), 'where the answer placed it');
    assert.equal(html.split('alt="sales_by_region.png"').length - 1, 0, 'not repeated under Charts');
    assert.ok(html.includes('alt="other.png"'), 'a chart the answer did not name is still under Charts');
  });

  test('the same in an HTML report whose artifact links carry a download prefix', async () => {
    const prefix = 'http://127.0.0.1:8000/v1/threads/thread-1/files/';
    const relocated = chartRecord(ANSWER);
    relocated.events = withArtifactPrefix(relocated.events, prefix);
    const html = await renderHtmlReport(relocated, prefixedReader(prefix, files()));
    assert.ok(html.includes(`<img src="data:image/png;base64,${PNG_BASE64}" alt="Sales by region" />`));
    assert.doesNotMatch(html, /image not embedded/);
  });

  test('a Markdown report downloaded alone embeds its charts; the one beside the files links them', async () => {
    const alone = await renderMarkdownReport(chartRecord(ANSWER), files(), { embedImages: true });
    assert.ok(alone.includes(`![Sales by region](data:image/png;base64,${PNG_BASE64})`));
    assert.doesNotMatch(alone, /\]\((?!data:)[^)]*\.png\)/, 'no link to a file that is not there');
    const beside = await renderMarkdownReport(chartRecord(ANSWER), files());
    assert.ok(beside.includes('![Sales by region](sales_by_region.png)'));
    assert.ok(beside.includes('![other.png](other.png)'));
  });

  test("the notebook's answer cell carries the chart as an attachment", async () => {
    const notebook = await renderNotebook(chartRecord(ANSWER), files());
    const cell = notebook.cells.find(
      (c) => c.cell_type === 'markdown' && [c.source].flat().join('').startsWith('## Answer'),
    );
    assert.ok(cell && cell.cell_type === 'markdown');
    const source = [cell.source].flat().join('');
    assert.match(source, /!\[Sales by region\]\(attachment:sales_by_region\.png\)/);
    assert.deepEqual(cell.attachments, { 'sales_by_region.png': { 'image/png': PNG_BASE64 } });
  });

  test('images in code, images of other hosts and files that are not artifacts stay as written', async () => {
    const text = [
      '`![code](sales_by_region.png)` and ![remote](https://example.com/x.png)',
      '```',
      '![fenced](sales_by_region.png)',
      '```',
      '![missing](nope.png) ![ok](./sales_by_region.png "title")',
    ].join('\n');
    const charts = [artifact('sales_by_region.png', 1, 'image/png')];
    const placed = await resolveProseImages(text, charts, async () => 'IMG');
    assert.equal(
      placed.text,
      [
        '`![code](sales_by_region.png)` and ![remote](https://example.com/x.png)',
        '```',
        '![fenced](sales_by_region.png)',
        '```',
        '![missing](nope.png) IMG',
      ].join('\n'),
    );
    assert.deepEqual(placed.shown, charts);
  });

  test('a destination names an artifact by path, ./path, encoded name or unique file name', () => {
    const charts = [artifact('out/a b.png', 1, 'image/png'), artifact('x/c.png', 1, 'image/png')];
    assert.equal(artifactForDestination('out/a%20b.png', charts), charts[0]);
    assert.equal(artifactForDestination('./x/c.png', charts), charts[1]);
    assert.equal(artifactForDestination('c.png', charts), charts[1]);
    assert.equal(artifactForDestination('/v1/threads/thread-1/files/out/a%20b.png', charts), charts[0]);
    assert.equal(artifactForDestination('http://host:8000/v1/threads/t/files/x/c.png', charts), charts[1]);
    assert.equal(artifactForDestination('/etc/c.png', charts), undefined);
    assert.equal(artifactForDestination('javascript:c.png', charts), undefined);
  });
});
