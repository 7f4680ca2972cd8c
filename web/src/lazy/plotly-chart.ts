import Plotly, { type ModeBarButton } from 'plotly.js-strict-dist-min';
import type { ChartHandle } from '../lib/charts.ts';

/**
 * Draws a `.plotly.json` artifact (docs/spec.md#charts) with plotly.js, loaded on first use: hover
 * and zoom come with plotly, its modebar downloads PNG, and one more button SVG.
 */
export async function drawPlotly(element: HTMLElement, spec: unknown, name: string): Promise<ChartHandle> {
  const figure = (spec ?? {}) as { data?: unknown; layout?: unknown };
  const data = Array.isArray(figure.data) ? figure.data : [];
  const layout = typeof figure.layout === 'object' && figure.layout !== null ? figure.layout : {};
  const svg: ModeBarButton = {
    name: 'analyst-svg',
    title: 'Download plot as SVG',
    icon: Plotly.Icons.disk,
    click: (plot) => void Plotly.downloadImage(plot, { format: 'svg', filename: name }),
  };
  await Plotly.newPlot(element, data, layout, {
    responsive: true,
    displaylogo: false,
    // The figure's own links (plotly's "edit in chart studio") would send the data elsewhere.
    showLink: false,
    showSendToCloud: false,
    toImageButtonOptions: { format: 'png', filename: name },
    modeBarButtonsToAdd: [svg],
  });
  return { destroy: () => Plotly.purge(element) };
}
