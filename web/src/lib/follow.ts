import type { RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** How close to the bottom (px) still counts as "at the latest". */
const NEAR_BOTTOM_PX = 80;
/** Keys that scroll the focused scroller up. */
const UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);

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
 * The reader's gesture up (wheel, touch, keys) stops following at once, before its scroll lands:
 * otherwise a pin for content that grew in between puts the view back and the scroll is lost.
 * Scrolling by other means (the scrollbar) is seen by its scroll events, and only a move *up*
 * counts: they arrive a frame late, so a distance from the bottom measured then also counts
 * content that grew since the last pin, which is not the reader's doing. Following starts again
 * on a move *down* to near the bottom, so the first frames of a smooth scroll up, still near it,
 * do not undo the reader's choice. Growth is seen by a ResizeObserver, not by renders, because
 * cards re-render on their own (lazy highlighter, images) without the list rendering.
 * `resetKey` (the thread) starts following again when it changes.
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

  const readerGoesUp = useCallback(
    (event: Event) => {
      const el = scrollerRef.current;
      if (!el || el.scrollTop <= 0 || !followingRef.current) return;
      if (innerScrollsUp(event.target, el)) return;
      setBoth(false);
    },
    [setBoth],
  );

  // One observer and one set of gesture listeners for the component's life, on whichever
  // scroller and content are mounted.
  const watched = useRef<{ scroller?: Element; content?: Element }>({});
  const syncRef = useRef<(() => void) | undefined>(undefined);
  useEffect(() => {
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(pin);
    const gestures = upGestures(readerGoesUp);
    const sync = () => {
      for (const key of ['scroller', 'content'] as const) {
        const el = (key === 'scroller' ? scrollerRef : contentRef).current ?? undefined;
        const old = watched.current[key];
        if (old === el) continue;
        if (old) observer.unobserve(old);
        if (el) observer.observe(el);
        if (key === 'scroller') {
          if (old) gestures.detach(old);
          if (el) gestures.attach(el);
        }
        watched.current[key] = el;
      }
    };
    sync();
    syncRef.current = sync;
    return () => {
      observer.disconnect();
      if (watched.current.scroller) gestures.detach(watched.current.scroller);
      watched.current = {};
      syncRef.current = undefined;
    };
  }, [pin, readerGoesUp]);
  // The welcome screen has no content element; the runs view has: observe what is there now.
  useEffect(() => syncRef.current?.());

  const onScroll = useCallback(() => {
    const el = scrollerRef.current;
    if (!el) return;
    const gap = el.scrollHeight - el.scrollTop - el.clientHeight;
    const movedUp = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (movedUp) {
      if (gap >= NEAR_BOTTOM_PX && followingRef.current) setBoth(false);
    } else if (gap < NEAR_BOTTOM_PX && !followingRef.current) {
      setBoth(true);
    }
  }, [setBoth]);

  const jumpToLatest = useCallback(() => {
    setBoth(true);
    pin();
  }, [setBoth, pin]);

  return { scrollerRef, contentRef, following, onScroll, jumpToLatest };
}

/** Listeners that call `up` for a gesture that moves the view up: wheel, touch drag, keys. */
function upGestures(up: (event: Event) => void) {
  let touchY: number | undefined;
  const listeners: Record<string, (event: Event) => void> = {
    wheel: (event) => {
      if ((event as WheelEvent).deltaY < 0) up(event);
    },
    touchstart: (event) => {
      touchY = (event as TouchEvent).touches[0]?.clientY;
    },
    touchmove: (event) => {
      const y = (event as TouchEvent).touches[0]?.clientY;
      // A finger moving down drags the content down: the view goes up.
      if (y !== undefined && touchY !== undefined && y > touchY) up(event);
      touchY = y;
    },
    keydown: (event) => {
      if (UP_KEYS.has((event as KeyboardEvent).key) && !isEditable(event.target)) up(event);
    },
  };
  return {
    attach: (el: Element) => {
      for (const [name, listener] of Object.entries(listeners))
        el.addEventListener(name, listener, { passive: true });
    },
    detach: (el: Element) => {
      for (const [name, listener] of Object.entries(listeners)) el.removeEventListener(name, listener);
    },
  };
}

/** Whether an element between the gesture's target and the scroller takes the scroll up itself. */
function innerScrollsUp(target: EventTarget | null, scroller: Element): boolean {
  for (let el = target instanceof Element ? target : null; el && el !== scroller; el = el.parentElement) {
    if (el.scrollTop > 0 && el.scrollHeight > el.clientHeight) {
      const overflow = getComputedStyle(el).overflowY;
      if (overflow === 'auto' || overflow === 'scroll') return true;
    }
  }
  return false;
}

/** Keys typed into a field move its caret, not the view. */
function isEditable(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}
