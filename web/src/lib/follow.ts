import type { RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** How close to the bottom (px) still counts as "at the latest". */
const NEAR_BOTTOM_PX = 80;

export interface Follow {
  /** The scrolling element. */
  scrollerRef: RefObject<HTMLDivElement | null>;
  /** The element whose growth is followed (the runs), inside the scroller. */
  contentRef: RefObject<HTMLDivElement | null>;
  /** Whether the view keeps to the bottom; false once the reader scrolled up. */
  following: boolean;
  onScroll: () => void;
  /** Back to the bottom, following again. */
  jumpToLatest: () => void;
}

/**
 * Keeps a scroller at its bottom while its content grows (cards streaming in, code highlighted
 * late, a chart drawn after the run's last event), until the reader scrolls up themselves.
 *
 * Only a move *up* stops following: scroll events arrive a frame late, so a distance from the
 * bottom measured then also counts content that grew since the last pin, which is not the
 * reader's doing. Growth is seen by a ResizeObserver, not by renders, because cards re-render
 * on their own (lazy highlighter, images) without the list rendering. `resetKey` (the thread)
 * starts following again when it changes.
 */
export function useFollow(resetKey: unknown): Follow {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const followingRef = useRef(true);
  const lastTop = useRef(0);
  const [following, setFollowing] = useState(true);

  const setBoth = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowing(value);
  }, []);

  const pin = useCallback(() => {
    const el = scrollerRef.current;
    if (!el || !followingRef.current) return;
    el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollTop;
  }, []);

  useLayoutEffect(() => {
    setBoth(true);
    pin();
  }, [resetKey]);

  // Every render may have added a card: keep to the bottom if following.
  useLayoutEffect(pin);

  // One observer for the component's life; it watches whichever scroller and content are mounted.
  const watched = useRef<{ scroller?: Element; content?: Element }>({});
  const syncRef = useRef<(() => void) | undefined>(undefined);
  useEffect(() => {
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(pin);
    const sync = () => {
      for (const key of ['scroller', 'content'] as const) {
        const el = (key === 'scroller' ? scrollerRef : contentRef).current ?? undefined;
        if (watched.current[key] === el) continue;
        if (watched.current[key]) observer.unobserve(watched.current[key]);
        if (el) observer.observe(el);
        watched.current[key] = el;
      }
    };
    sync();
    syncRef.current = sync;
    return () => {
      observer.disconnect();
      watched.current = {};
      syncRef.current = undefined;
    };
  }, [pin]);
  // The welcome screen has no content element; the runs view has: observe what is there now.
  useEffect(() => syncRef.current?.());

  const onScroll = useCallback(() => {
    const el = scrollerRef.current;
    if (!el) return;
    const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
    const movedUp = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (gap < NEAR_BOTTOM_PX) {
      if (!followingRef.current) setBoth(true);
    } else if (movedUp && followingRef.current) {
      setBoth(false);
    }
  }, [setBoth]);

  const jumpToLatest = useCallback(() => {
    setBoth(true);
    pin();
  }, [setBoth, pin]);

  return { scrollerRef, contentRef, following, onScroll, jumpToLatest };
}
