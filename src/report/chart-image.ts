import { constants, readFileSync } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHART_SPEC_MAX_BYTES, type ChartSpecKind } from '../contract/chart-spec.ts';
import { DEFAULT_CHROMIUM_PATH, headlessArgs, runChromium } from './chromium.ts';
import { ChartImageError } from './errors/chart-image-error.ts';
import { sniffRaster } from './images.ts';

export interface ChartImageOptions {
  /** The Chromium (or Chrome) binary. Default `/usr/bin/chromium`. */
  chromiumPath?: string;
  /** How long one chart may take to draw before Chromium is killed. Default 20000 ms. */
  timeoutMs?: number;
  /** Aborting kills Chromium and rejects with a ChartImageError. */
  abortSignal?: AbortSignal;
  /** Where the temporary folder (page, browser profile) is made. Default the OS temp dir. */
  tempDir?: string;
  /** Where the chart libraries are: the web UI's node_modules. Default this checkout's `web/node_modules`. */
  librariesDir?: string;
}

// A PNG data URL in the dumped page is at most this large (a 1200×720 chart at 1.5× is far less).
const DUMP_MAX_BYTES = 40 * 1024 * 1024;

const DEFAULT_LIBRARIES = fileURLToPath(new URL('../../web/node_modules/', import.meta.url));

/** Each kind's scripts, in load order, from the same packages the studio draws with. */
const LIBRARY_FILES: Record<ChartSpecKind, string[]> = {
  plotly: ['plotly.js-strict-dist-min/plotly-strict.min.js'],
  'vega-lite': ['vega/build/vega.min.js', 'vega-lite/build/vega-lite.min.js'],
};

const PAGE = readFileSync(new URL('./chart-page.html', import.meta.url), 'utf8');
const libraryText = new Map<string, string>();

/**
 * A chart spec (a `.plotly.json` or `.vega.json` artifact) drawn as a PNG by its own library in
 * headless Chromium, for a report that cannot run scripts (docs/spec.md#reports). Everything lives
 * in one temporary folder removed afterwards; the page's CSP lets the spec load nothing. Throws
 * ChartImageError when it cannot (no Chromium, no libraries, a spec the library refuses).
 */
export async function renderChartImage(
  kind: ChartSpecKind,
  specText: string,
  options: ChartImageOptions = {},
): Promise<Buffer> {
  const chromium = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  const spec = Buffer.from(specText, 'utf8');
  if (spec.length > CHART_SPEC_MAX_BYTES)
    throw new ChartImageError(`the chart spec is larger than ${CHART_SPEC_MAX_BYTES} bytes`);
  await access(chromium, constants.X_OK).catch((cause: unknown) => {
    throw unavailable(chromium, cause);
  });
  const libraries = await librariesFor(kind, options.librariesDir ?? DEFAULT_LIBRARIES);
  // As base64, parsed by the page: the spec's text can never close the script element it sits
  // in or be anything but data, and a large spec is not parsed on the server's thread.
  const specBase64 = spec.toString('base64');
  const html = PAGE.replace('__KIND__', kind)
    .replace('__SPEC__', () => specBase64)
    .replace('__LIBRARIES__', () => libraries);
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'analyst-chart-'));
  try {
    const page = join(dir, 'chart.html');
    await writeFile(page, html, 'utf8');
    const dom = await runChromium(
      chromium,
      [
        ...headlessArgs(join(dir, 'profile')),
        // Virtual time runs the page's promises (drawing, image encoding) before the DOM is dumped.
        '--virtual-time-budget=15000',
        '--dump-dom',
        pathToFileURL(page).href,
      ],
      {
        dir,
        timeoutMs: options.timeoutMs ?? 20_000,
        abortSignal: options.abortSignal,
        task: 'drawing a chart',
        stdoutBytes: DUMP_MAX_BYTES,
        fail: (message, cause) => new ChartImageError(message, { cause }),
        unavailable: (cause) => unavailable(chromium, cause),
      },
    );
    return imageFromDom(dom);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The PNG the page put in `<pre id="image">`, or the library's own error from `<pre id="error">`. */
function imageFromDom(dom: string): Buffer {
  const image = /<pre id="image">data:image\/png;base64,([A-Za-z0-9+/=]+)<\/pre>/.exec(dom)?.[1];
  if (image) {
    const bytes = Buffer.from(image, 'base64');
    if (sniffRaster(bytes) === 'image/png') return bytes;
  }
  const error = /<pre id="error">([^<]*)<\/pre>/.exec(dom)?.[1];
  throw new ChartImageError(
    error ? `the chart library refused the spec: ${error.slice(0, 300)}` : 'the chart was not drawn in time',
  );
}

async function librariesFor(kind: ChartSpecKind, dir: string): Promise<string> {
  const texts: string[] = [];
  for (const file of LIBRARY_FILES[kind]) {
    const path = join(dir, file);
    let text = libraryText.get(path);
    if (text === undefined) {
      text = await readFile(path, 'utf8').catch((cause: unknown) => {
        throw new ChartImageError(
          `no ${file} under ${dir}: install the web UI's packages (npm ci --prefix web) to draw charts in reports`,
          { cause },
        );
      });
      // Inlined into a <script>: a library that could end that element is not used.
      if (/<\/script/i.test(text)) throw new ChartImageError(`${file} cannot be inlined into a page`);
      libraryText.set(path, text);
    }
    texts.push(text);
  }
  return texts.join('\n;\n');
}

function unavailable(chromium: string, cause: unknown): ChartImageError {
  return new ChartImageError(
    `no Chromium at ${chromium}: install chromium (apt-get install chromium) to draw charts in reports`,
    { cause },
  );
}
