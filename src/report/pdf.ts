import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_CHROMIUM_PATH, headlessArgs, runChromium } from './chromium.ts';
import { PdfRenderError } from './errors/pdf-render-error.ts';
import { PdfUnavailableError } from './errors/pdf-unavailable-error.ts';

export { DEFAULT_CHROMIUM_PATH };

export interface PdfOptions {
  /** The Chromium (or Chrome) binary. Default `/usr/bin/chromium`. */
  chromiumPath?: string;
  /** How long Chromium may take to print before it is killed. Default 60000 ms. */
  timeoutMs?: number;
  /** Aborting kills Chromium and rejects with a PdfRenderError. */
  abortSignal?: AbortSignal;
  /** Where the temporary folder (page, PDF, browser profile) is made. Default the OS temp dir. */
  tempDir?: string;
}

/**
 * Prints a self-contained HTML report to PDF with headless Chromium. Everything Chromium
 * writes (the page, the PDF, its profile) lives in one temporary folder that is removed
 * afterwards, whatever happens. Chromium runs with its network features off; the page
 * itself has no scripts and its CSP forbids them. (Turning JavaScript off with
 * `--blink-settings=scriptEnabled=false` makes headless Chromium 156 exit without
 * printing, so that switch is not used.)
 */
export async function renderPdf(html: string, options: PdfOptions = {}): Promise<Buffer> {
  const chromium = options.chromiumPath ?? DEFAULT_CHROMIUM_PATH;
  const timeoutMs = options.timeoutMs ?? 60_000;
  await access(chromium, constants.X_OK).catch((cause: unknown) => {
    throw unavailable(chromium, cause);
  });
  const dir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'analyst-pdf-'));
  try {
    const page = join(dir, 'report.html');
    const output = join(dir, 'report.pdf');
    await writeFile(page, html, 'utf8');
    const args = [
      ...headlessArgs(join(dir, 'profile')),
      '--no-pdf-header-footer',
      `--print-to-pdf=${output}`,
      pathToFileURL(page).href,
    ];
    await runChromium(chromium, args, {
      dir,
      timeoutMs,
      abortSignal: options.abortSignal,
      task: 'printing the report',
      fail: (message, cause) => new PdfRenderError(message, { cause }),
      unavailable: (cause) => unavailable(chromium, cause),
    });
    const pdf = await readFile(output).catch(() => undefined);
    if (pdf?.subarray(0, 5).toString('latin1') !== '%PDF-') {
      throw new PdfRenderError(`${chromium} exited without writing a PDF; run it by hand to see why`);
    }
    return pdf;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function unavailable(chromium: string, cause: unknown): PdfUnavailableError {
  return new PdfUnavailableError(
    `no Chromium at ${chromium}: install chromium (apt-get install chromium) or pass chromiumPath; ` +
      'Markdown and HTML reports work without it',
    { cause },
  );
}
