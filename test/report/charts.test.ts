import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderChartImage } from '../../src/report/chart-image.ts';
import { ChartImageError } from '../../src/report/errors/chart-image-error.ts';
import { renderHtmlReport, renderMarkdownReport } from '../../src/report/index.ts';
import { startTestServer } from '../server/helpers.ts';
import { artifact, execResult, filesReader, RunBuilder, record } from './fixtures.ts';

/** Interactive charts in reports (docs/spec.md#reports): a static PNG drawn by the chart's own library. */
const PLOTLY_SPEC = JSON.stringify({
  data: [{ type: 'bar', x: ['north', 'south', 'east'], y: [40, 25, 34] }],
  layout: { title: { text: 'Sales by region' } },
});

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): [number, number] {
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('chart specs drawn as images for reports', { timeout: 300_000 }, () => {
  test('a plotly spec becomes a PNG of the figure at 1.5× its default 800×480', async () => {
    const png = await renderChartImage('plotly', PLOTLY_SPEC);
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.deepEqual(pngSize(png), [1200, 720]);
  });

  test('a Vega-Lite spec may load no file or URL: the library refuses, no image is made', async () => {
    const spec = JSON.stringify({
      data: { url: 'file:///etc/hostname', format: { type: 'csv' } },
      mark: 'bar',
      encoding: { x: { field: 'a', type: 'nominal' } },
    });
    await assert.rejects(renderChartImage('vega-lite', spec), (error: unknown) => {
      assert.ok(error instanceof ChartImageError);
      assert.match(error.message, /load no URLs|not drawn/);
      return true;
    });
  });

  test('without Chromium the error says how to fix it', async () => {
    await assert.rejects(
      renderChartImage('plotly', PLOTLY_SPEC, { chromiumPath: '/nonexistent/chromium' }),
      /no Chromium at \/nonexistent\/chromium: install chromium/,
    );
  });

  test('a report that has only the spec (no image drawn) names the file as an interactive chart', async () => {
    const run = new RunBuilder('Chart the sales')
      .cell({
        id: 'c1',
        code: 'px.bar(df, x="region", y="amount").show()',
        result: execResult({ artifacts: [artifact('figure-1.plotly.json', 120, 'application/json')] }),
      })
      .answer('North sells most.');
    const history = record('Sales', 'Chart the sales', run);
    const files = filesReader({ 'figure-1.plotly.json': Buffer.from(PLOTLY_SPEC) });
    const html = await renderHtmlReport(history, files);
    assert.match(html, /figure-1\.plotly\.json<\/a> \(<em>interactive chart: open it in the studio<\/em>\)/);
    assert.doesNotMatch(html, /data:image\/png/);
    const markdown = await renderMarkdownReport(history, files);
    assert.match(markdown, /\[figure-1\.plotly\.json\]\(figure-1\.plotly\.json\) \(\*interactive chart/);
  });
});

describe('the server embeds a plotly figure in the HTML report as a PNG', { timeout: 600_000 }, () => {
  test('a run in the real sandbox shows a figure; its report carries the drawn PNG beside the answer', async () => {
    const server = await startTestServer({
      script: {
        mode: 'match',
        turns: [
          {
            when: { last_role: 'user', last_contains: 'Chart the sales' },
            content:
              '<Code>\nimport plotly.express as px\npx.bar(x=["north", "south"], y=[40, 25]).show()\nprint("shown")\n</Code>',
          },
          {
            when: { last_role: 'execute', last_contains: 'shown' },
            content: '<Answer>North sells most (40).</Answer>',
          },
        ],
      },
    });
    try {
      const made = await server.fetch('/v1/threads', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      const thread = ((await made.json()) as { id: string }).id;
      const started = await server.fetch(`/v1/threads/${thread}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Chart the sales' }] }),
      });
      const { id } = (await started.json()) as { id: string };
      assert.match(
        await (await server.fetch(`/v1/threads/${thread}/runs/${id}/events`)).text(),
        /figure-1\.plotly\.json/,
      );
      const response = await server.fetch(`/v1/threads/${thread}/report?format=html`);
      assert.equal(response.status, 200);
      const html = await response.text();
      const image = /<img src="data:image\/png;base64,([A-Za-z0-9+/=]+)" alt="figure-1\.plotly\.json"/.exec(
        html,
      )?.[1];
      assert.ok(image, 'the figure is embedded as a PNG named after its file');
      const png = Buffer.from(image, 'base64');
      assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
      assert.ok(pngSize(png)[0] >= 800, `the image is ${pngSize(png).join('×')}`);
      assert.ok(
        html.indexOf('North sells most') < html.indexOf(image.slice(0, 40)),
        'the chart follows the answer',
      );
    } finally {
      await server.close();
    }
  });
});
