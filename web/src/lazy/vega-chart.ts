import { loader } from 'vega';
import embed from 'vega-embed';
import { type ChartHandle, interactiveVegaLite } from '../lib/charts.ts';
import './charts.css';

/**
 * Draws a `.vega.json` artifact (docs/spec.md#charts) with vega-embed, loaded on first use: its
 * actions menu downloads PNG and SVG. Under the studio's CSP: expressions are interpreted (no
 * eval), styles come from charts.css (no injected <style>), and the spec may load nothing: its
 * data must be inline, so a chart cannot read other URLs with the studio's origin.
 */
export async function drawVega(element: HTMLElement, spec: unknown, name: string): Promise<ChartHandle> {
  const inlineOnly = loader();
  inlineOnly.sanitize = () =>
    Promise.reject(new Error('charts in Analyst load no URLs: put the data in the chart itself'));
  const result = await embed(element, interactiveVegaLite(spec) as never, {
    mode: 'vega-lite',
    renderer: 'svg',
    ast: true,
    defaultStyle: false,
    // Without vega-embed's default style it would show the actions as plain links, not a menu.
    forceActionsMenu: true,
    loader: inlineOnly,
    downloadFileName: name,
    actions: { export: true, source: false, compiled: false, editor: false },
    tooltip: { disableDefaultStyle: true },
  });
  return { destroy: () => result.finalize() };
}
