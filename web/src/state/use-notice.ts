import { useCallback, useState } from 'preact/hooks';

/** What the studio's toast says: a failure, or news of something done (`info`), shown calmer. */
export interface Notice {
  text: string;
  info?: true;
}

/** The toast's one message: a new one replaces the one shown; `dismiss` closes it. */
export function useNotice(): {
  notice: Notice | undefined;
  showError(text: string): void;
  showInfo(text: string): void;
  dismiss(): void;
} {
  const [notice, setNotice] = useState<Notice>();
  return {
    notice,
    showError: useCallback((text: string) => setNotice({ text }), []),
    showInfo: useCallback((text: string) => setNotice({ text, info: true }), []),
    dismiss: useCallback(() => setNotice(undefined), []),
  };
}
