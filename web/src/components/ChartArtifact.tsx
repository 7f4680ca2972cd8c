import { useEffect, useRef, useState } from 'preact/hooks';
import { CHART_SPEC_MAX_BYTES, chartSpecKind } from '../../../src/contract/chart-spec.ts';
import { api } from '../api/client.ts';
import { formatBytes, t } from '../i18n/i18n.ts';
import { type ChartHandle, downloadName } from '../lib/charts.ts';
import { fileUrl } from '../lib/files.ts';

type Draw = (element: HTMLElement, spec: unknown, name: string) => Promise<ChartHandle>;

/** The library that draws a chart, loaded only when a chart needs it (its own chunk, never the initial bundle). */
function drawerFor(path: string): Promise<Draw> {
  return chartSpecKind(path) === 'plotly'
    ? import('../lazy/plotly-chart.ts').then((m) => m.drawPlotly)
    : import('../lazy/vega-chart.ts').then((m) => m.drawVega);
}

/**
 * A `.plotly.json` or `.vega.json` artifact drawn interactively with its library's own renderer
 * (hover, zoom, PNG and SVG download). `version` changes when the file did, to draw it anew.
 */
export function ChartArtifact(props: { threadId: string; path: string; bytes: number; version: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'drawn' | { error: string }>('loading');
  const tooLarge = props.bytes > CHART_SPEC_MAX_BYTES;
  useEffect(() => {
    const element = ref.current;
    if (!element || tooLarge) return;
    let live = true;
    let handle: ChartHandle | undefined;
    setState('loading');
    Promise.all([
      drawerFor(props.path),
      api.resource(fileUrl(props.threadId, props.path)).then((r) => r.json() as Promise<unknown>),
    ])
      .then(([draw, spec]) => (live ? draw(element, spec, downloadName(props.path)) : undefined))
      .then((drawn) => {
        if (!live) drawn?.destroy();
        else {
          handle = drawn;
          setState('drawn');
        }
      })
      .catch((error: Error) => live && setState({ error: error.message }));
    return () => {
      live = false;
      handle?.destroy();
    };
  }, [props.threadId, props.path, props.version, tooLarge]);
  const kind = chartSpecKind(props.path) ?? 'vega-lite';
  return (
    <figure class={`chart-artifact chart-${kind}`} data-path={props.path}>
      {tooLarge ? (
        <p class="warn">{t('chart.tooLarge', { bytes: formatBytes(props.bytes) })}</p>
      ) : (
        <div class="chart-canvas" ref={ref} />
      )}
      {state === 'loading' && !tooLarge && <p class="muted chart-note">{t('chart.loading')}</p>}
      {typeof state === 'object' && (
        <p class="error-line chart-note" role="alert">
          {t('chart.failed', { message: state.error })}
        </p>
      )}
      <figcaption class="caption">{props.path}</figcaption>
    </figure>
  );
}
