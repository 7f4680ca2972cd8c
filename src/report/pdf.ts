import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PdfRenderError } from './errors/pdf-render-error.ts';
import { PdfUnavailableError } from './errors/pdf-unavailable-error.ts';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

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
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--disable-extensions',
      '--no-first-run',
      '--no-default-browser-check',
      '--no-pdf-header-footer',
      `--user-data-dir=${join(dir, 'profile')}`,
      `--print-to-pdf=${output}`,
      pathToFileURL(page).href,
    ];
    await runChromium(chromium, args, { dir, timeoutMs, abortSignal: options.abortSignal });
    const pdf = await readFile(output).catch(() => undefined);
    if (pdf?.subarray(0, 5).toString('latin1') !== '%PDF-') {
      throw new PdfRenderError(`${chromium} exited without writing a PDF; run it by hand to see why`);
    }
    return pdf;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function unavailable(chromium: string, cause: unknown): PdfUnavailableError {
  return new PdfUnavailableError(
    `no Chromium at ${chromium}: install chromium (apt-get install chromium) or pass chromiumPath; ` +
      'Markdown and HTML reports work without it',
    { cause },
  );
}

/** Runs Chromium in its own process group so a timeout or abort can stop all its processes. */
function runChromium(
  chromium: string,
  args: string[],
  options: { dir: string; timeoutMs: number; abortSignal: AbortSignal | undefined },
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (options.abortSignal?.aborted) {
      reject(new PdfRenderError('PDF rendering was cancelled'));
      return;
    }
    // HOME and XDG folders point into the temporary folder so nothing is left elsewhere.
    const env = {
      ...process.env,
      HOME: options.dir,
      XDG_CONFIG_HOME: options.dir,
      XDG_CACHE_HOME: options.dir,
    };
    const child = spawn(chromium, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    let stopped: PdfRenderError | undefined;
    const stop = (error: PdfRenderError) => {
      stopped ??= error;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => stop(new PdfRenderError(`Chromium did not finish printing within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => stop(new PdfRenderError('PDF rendering was cancelled'));
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      options.abortSignal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      finish();
      reject(unavailable(chromium, error));
    });
    child.on('close', (code, signal) => {
      finish();
      if (stopped) reject(stopped);
      else if (code === 0) resolve();
      else {
        const detail = stderr.trim().split('\n').slice(-5).join('\n');
        reject(
          new PdfRenderError(`Chromium failed (${signal ?? `exit ${code}`}) printing the report: ${detail}`),
        );
      }
    });
  });
}
