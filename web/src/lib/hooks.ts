import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { onLanguageChange } from '../i18n/i18n.ts';

/** Re-renders when `subscribe`'s source changes. */
export function useSubscription(subscribe: ((listener: () => void) => () => void) | undefined): void {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => subscribe?.(() => tick(undefined)), [subscribe]);
}

/** Re-renders the whole app when the language changes. */
export function useLanguage(): void {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => onLanguageChange(() => tick(undefined)), []);
}

/** A module loaded on first use (heavy parts: editor, grid, PDF, highlighter). */
export function useLazy<T>(load: () => Promise<T>): T | undefined {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  const ref = useRef<{ value?: T; started?: boolean }>({});
  if (!ref.current.started) {
    ref.current.started = true;
    void load().then((value) => {
      ref.current.value = value;
      tick(undefined);
    });
  }
  return ref.current.value;
}

/** Seconds since `since`, ticking once a second while `since` is set. */
export function useSecondsSince(since: number | undefined): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (since === undefined) return;
    const timer = setInterval(() => tick(undefined), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since === undefined ? 0 : Math.max(0, Math.floor((Date.now() - since) / 1000));
}

/** `value` once it has stayed the same for `delayMs`. */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
