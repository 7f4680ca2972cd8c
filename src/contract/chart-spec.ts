/**
 * Interactive chart artifacts (docs/spec.md#charts): a plotly figure a cell shows is written as
 * `figure-<n>.plotly.json` (plotly.js's `{data, layout}`), an altair chart as `chart-<n>.vega.json`
 * (a Vega-Lite spec). They are told apart by name, so every front end (the studio, reports)
 * decides the same way.
 */
export type ChartSpecKind = 'plotly' | 'vega-lite';

export const CHART_SPEC_SUFFIXES: Readonly<Record<ChartSpecKind, string>> = {
  plotly: '.plotly.json',
  'vega-lite': '.vega.json',
};

/**
 * The largest spec drawn, in the studio or for a report; the kernel writes none larger
 * (src/sandbox/kernel/charts.py, `CHART_MAX_BYTES`).
 */
export const CHART_SPEC_MAX_BYTES = 10 * 1024 * 1024;

/** Which chart library draws the file at `path`, or `undefined` for any other file. */
export function chartSpecKind(path: string): ChartSpecKind | undefined {
  const name = path.toLowerCase();
  if (name.endsWith(CHART_SPEC_SUFFIXES.plotly)) return 'plotly';
  if (name.endsWith(CHART_SPEC_SUFFIXES['vega-lite'])) return 'vega-lite';
  return undefined;
}
