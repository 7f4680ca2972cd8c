import { CATALOGUES, type Language, type MessageKey } from './catalogue.ts';

const STORAGE = 'analyst.language';

function initial(): Language {
  const stored = localStorage.getItem(STORAGE);
  if (stored === 'en' || stored === 'zh') return stored;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

let language: Language = initial();
const listeners = new Set<() => void>();
document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';

export function currentLanguage(): Language {
  return language;
}

export function setLanguage(next: Language): void {
  language = next;
  localStorage.setItem(STORAGE, next);
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const listener of listeners) listener();
}

export function onLanguageChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The message `key` in the current language, `{name}` placeholders filled from `params`. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const text = CATALOGUES[language][key] ?? CATALOGUES.en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/** Bytes as B / KB / MB / GB with one decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return t('size.b', { n: bytes });
  if (bytes < 1024 ** 2) return t('size.kb', { n: (bytes / 1024).toFixed(1) });
  if (bytes < 1024 ** 3) return t('size.mb', { n: (bytes / 1024 ** 2).toFixed(1) });
  return t('size.gb', { n: (bytes / 1024 ** 3).toFixed(1) });
}

/** The BCP 47 locale of the current language (numbers and dates are written in it). */
export function locale(): string {
  return language === 'zh' ? 'zh-CN' : 'en';
}

/** A number with the current language's digit grouping. */
export function formatNumber(n: number): string {
  return n.toLocaleString(locale());
}

/** A time (seconds since the epoch), short: the time today, the day this year, else the date. */
export function formatWhen(seconds: number, now = new Date()): string {
  const date = new Date(seconds * 1000);
  const sameYear = date.getFullYear() === now.getFullYear();
  const today = sameYear && date.getMonth() === now.getMonth() && date.getDate() === now.getDate();
  const options: Intl.DateTimeFormatOptions = today
    ? { hour: '2-digit', minute: '2-digit' }
    : sameYear
      ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { year: 'numeric', month: 'short', day: 'numeric' };
  return date.toLocaleString(locale(), options);
}
