import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/**
 * Marks a row that scrolls sideways with where more of it is hidden (`data-more`: `left`,
 * `right` or both), so its edge can fade (styles.css) and say "there is more this way".
 */
export function useScrollCue(ref: RefObject<HTMLElement | null>, deps: readonly unknown[] = []): void {
  useEffect(() => {
    const row = ref.current;
    if (!row) return;
    const update = () => {
      const more = [
        row.scrollLeft > 1 ? 'left' : '',
        row.scrollLeft + row.clientWidth < row.scrollWidth - 1 ? 'right' : '',
      ]
        .filter(Boolean)
        .join(' ');
      if (more) row.dataset.more = more;
      else delete row.dataset.more;
    };
    update();
    row.addEventListener('scroll', update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(row);
    return () => {
      row.removeEventListener('scroll', update);
      observer.disconnect();
    };
  }, deps);
}
