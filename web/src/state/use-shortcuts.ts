import { useLayoutEffect, useRef } from 'preact/hooks';

/** What the studio's keys do; the hook always calls the latest of these. */
export interface ShortcutActions {
  /** Whether Esc has a run to stop. */
  running: boolean;
  stop(): void;
  showShortcuts(): void;
  search(): void;
  newThread(): void;
  upload(): void;
}

/**
 * Keyboard: Esc stops, ? (or Ctrl+/ while typing) shows the shortcuts, Ctrl+K searches, Alt+N
 * new thread, Alt+U uploads. Listened to from the first layout (before the first paint), so a
 * key pressed as soon as the page shows is not lost. Keys are ignored while a dialog is open.
 */
export function useShortcuts(actions: ShortcutActions): void {
  const latest = useRef(actions);
  latest.current = actions;
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const act = latest.current;
      const target = e.target as HTMLElement;
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable;
      if (document.querySelector('dialog[open]')) return;
      const command = e.ctrlKey || e.metaKey;
      // Alt shortcuts by physical key: on a Mac, Alt+U types a dead key, not "u".
      if (e.key === 'Escape' && act.running) {
        e.preventDefault();
        act.stop();
      } else if ((e.key === '?' && !typing) || (command && e.key === '/')) {
        e.preventDefault();
        act.showShortcuts();
      } else if (command && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        act.search();
      } else if (e.altKey && !command && e.code === 'KeyN') {
        e.preventDefault();
        act.newThread();
      } else if (e.altKey && !command && e.code === 'KeyU') {
        e.preventDefault();
        act.upload();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}
