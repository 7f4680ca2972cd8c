import { useEffect, useRef } from 'preact/hooks';
import type { GroundedNumber } from '../../../src/agent/grounding/types.ts';
import { blobUrl } from '../api/client.ts';
import { t } from '../i18n/i18n.ts';
import { enhanceAnswerTables } from '../lib/answer-tables.ts';
import { fileUrl } from '../lib/files.ts';
import { markGroundedNumbers, type SourcePlace } from '../lib/grounding-marks.ts';
import { renderMarkdown } from '../lib/markdown.ts';
import { viewImage } from '../state/image-viewer.ts';

/**
 * Sanitised Markdown (see lib/markdown.ts). Images that point into the thread's workspace are
 * loaded through the API (with the key) as blob URLs; links to workspace files open them in
 * the inspector instead of leaving the app.
 */
export function Markdown(props: {
  text: string;
  threadId: string;
  onOpenFile?: (path: string) => void;
  /** An answer's numbers, marked with their sources (see lib/grounding-marks.ts). */
  grounding?: readonly GroundedNumber[];
  /** Where a number's source is, as the user sees the run (its tooltip). */
  place?: SourcePlace;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    // While an answer streams it is rendered again each frame: images already loaded are
    // moved into the new markup rather than loaded again, so they neither flicker nor jump.
    const loaded = new Map<string, HTMLImageElement>();
    for (const img of root.querySelectorAll<HTMLImageElement>('img[data-src][src]'))
      loaded.set(img.dataset.src ?? '', img);
    root.innerHTML = renderMarkdown(props.text);
    if (props.grounding) markGroundedNumbers(root, props.grounding, props.place);
    enhanceAnswerTables(root);
    for (const img of root.querySelectorAll<HTMLImageElement>('img[data-src]')) {
      const old = loaded.get(img.dataset.src ?? '');
      if (old && old.alt === img.alt) {
        loaded.delete(img.dataset.src ?? '');
        img.replaceWith(old);
        continue;
      }
      const path = workspacePath(img.dataset.src ?? '', props.threadId);
      if (!path) continue;
      // A chart opens full size (see ImageViewer), by click or by keyboard.
      img.tabIndex = 0;
      img.setAttribute('role', 'button');
      img.title = t('viewer.open');
      img.classList.add('enlargeable');
      void blobUrl(fileUrl(props.threadId, path)).then(
        (url) => {
          img.src = url;
        },
        () => img.classList.add('broken'),
      );
    }
  }, [props.text, props.threadId, props.grounding]);
  const openImage = (target: HTMLElement): boolean => {
    if (!(target instanceof HTMLImageElement) || !target.classList.contains('enlargeable')) return false;
    const path = workspacePath(target.dataset.src ?? '', props.threadId);
    if (!path) return false;
    viewImage({ threadId: props.threadId, path, version: '' });
    return true;
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.key === 'Enter' || event.key === ' ') && openImage(event.target as HTMLElement))
      event.preventDefault();
  };
  const onClick = (event: MouseEvent) => {
    if (openImage(event.target as HTMLElement)) {
      event.preventDefault();
      return;
    }
    const link = (event.target as HTMLElement).closest('a');
    if (!link) return;
    const path = workspacePath(link.getAttribute('href') ?? '', props.threadId);
    if (path && props.onOpenFile) {
      event.preventDefault();
      props.onOpenFile(path);
    }
  };
  // Clicks and keys are delegated from the links and charts inside (each focusable itself).
  // biome-ignore lint/a11y/noStaticElementInteractions: a delegated handler, not a control
  return <div class="markdown" ref={ref} onClick={onClick} onKeyDown={onKeyDown} />;
}

/** The workspace path a link or image points at: relative paths and this thread's file URLs. */
function workspacePath(src: string, threadId: string): string | undefined {
  const prefix = `/v1/threads/${threadId}/files/`;
  const at = src.indexOf(prefix);
  if (at !== -1 && (at === 0 || /^https?:\/\/[^/]+$/.test(src.slice(0, at))))
    return decodeURIComponent(src.slice(at + prefix.length));
  if (/^[a-z][a-z+.-]*:/i.test(src) || src.startsWith('/') || src.startsWith('#') || src === '')
    return undefined;
  const clean = src
    .replace(/^\.\//, '')
    .replace(/^workspace\//, '')
    .split('#')[0]!
    .split('?')[0]!;
  try {
    return decodeURIComponent(clean);
  } catch {
    return clean;
  }
}
