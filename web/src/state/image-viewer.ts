/**
 * The one image shown full size over the app (a chart from an answer, a cell or the inspector).
 * Any view opens it; the viewer mounted in App shows it.
 */
export interface ViewedImage {
  threadId: string;
  path: string;
  /** Changes when the file does (its size or time), so a re-run's chart is not served from cache. */
  version: string;
}

let viewed: ViewedImage | undefined;
const listeners = new Set<() => void>();

export function viewImage(image: ViewedImage | undefined): void {
  viewed = image;
  for (const listener of listeners) listener();
}

export function viewedImage(): ViewedImage | undefined {
  return viewed;
}

export function onViewedImage(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
