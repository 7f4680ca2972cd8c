// The parts of plotly.js's strict bundle (no eval: it runs under the studio's CSP) the studio uses.
declare module 'plotly.js-strict-dist-min' {
  interface ImageOptions {
    format: 'png' | 'svg';
    filename: string;
    width?: number;
    height?: number;
  }
  interface ModeBarButton {
    name: string;
    title: string;
    icon: unknown;
    click: (element: HTMLElement) => void;
  }
  const Plotly: {
    newPlot(element: HTMLElement, data: unknown[], layout?: object, config?: object): Promise<HTMLElement>;
    downloadImage(element: HTMLElement, options: ImageOptions): Promise<string>;
    purge(element: HTMLElement): void;
    Icons: Record<string, unknown>;
  };

  export type { ModeBarButton };
  export default Plotly;
}
