import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/** Renders the first pages of a PDF into canvases under `parent` (pdf.js, loaded on first use). */
export async function renderPdf(parent: HTMLElement, data: ArrayBuffer, maxPages = 20): Promise<number> {
  const pdf = await getDocument({ data, isEvalSupported: false, enableXfa: false }).promise;
  parent.replaceChildren();
  const pages = Math.min(pdf.numPages, maxPages);
  const width = Math.max(200, parent.clientWidth - 16);
  for (let n = 1; n <= pages; n++) {
    const page = await pdf.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const scale = width / base.width;
    const viewport = page.getViewport({ scale: scale * devicePixelRatio });
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.style.width = `${Math.floor(viewport.width / devicePixelRatio)}px`;
    canvas.className = 'pdf-page';
    parent.append(canvas);
    await page.render({ canvas, viewport }).promise;
  }
  return pdf.numPages;
}
