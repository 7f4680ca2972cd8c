/** A chart drawn into an element; `destroy` frees what its library holds (listeners, WebGL). */
export interface ChartHandle {
  destroy(): void;
}

/** The file name a chart's downloads get: its artifact name without `.plotly.json`/`.vega.json`. */
export function downloadName(path: string): string {
  const base = path.split('/').pop() ?? path;
  return base.replace(/\.(plotly|vega)\.json$/i, '') || 'chart';
}

type Spec = Record<string, unknown>;

/**
 * A Vega-Lite spec as the studio draws it: tooltips on for every mark (altair's charts often
 * name none) and, for a single view that has no interaction of its own, zoom and pan on its
 * continuous x and y scales, as plotly figures have. Its `usermeta` is dropped: a spec may not
 * set the embedding's own options (loader, actions).
 */
export function interactiveVegaLite(spec: unknown): Spec {
  const { usermeta: _, ...rest } = (typeof spec === 'object' && spec !== null ? spec : {}) as Spec;
  const out: Spec = { ...rest };
  const config = (typeof out.config === 'object' && out.config !== null ? out.config : {}) as Spec;
  const mark = (typeof config.mark === 'object' && config.mark !== null ? config.mark : {}) as Spec;
  out.config = { ...config, mark: { tooltip: true, ...mark } };
  const single =
    'mark' in out && !['layer', 'hconcat', 'vconcat', 'concat', 'facet', 'repeat'].some((k) => k in out);
  if (!single || 'params' in out || 'selection' in out) return out;
  const encoding = (typeof out.encoding === 'object' && out.encoding !== null ? out.encoding : {}) as Spec;
  const continuous = ['x', 'y'].filter((channel) => {
    const field = encoding[channel] as Spec | undefined;
    return (field?.type === 'quantitative' || field?.type === 'temporal') && !field.bin && !field.aggregate;
  });
  if (continuous.length === 0) return out;
  out.params = [
    { name: 'analyst_zoom', select: { type: 'interval', encodings: continuous }, bind: 'scales' },
  ];
  return out;
}
