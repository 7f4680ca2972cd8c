export type ThemeChoice = 'light' | 'dark' | 'system';

const STORAGE = 'analyst.theme';
const media = matchMedia('(prefers-color-scheme: dark)');

export function themeChoice(): ThemeChoice {
  const stored = localStorage.getItem(STORAGE);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** Applies the theme to <html data-theme> (system follows the OS, live). */
export function applyTheme(choice: ThemeChoice = themeChoice()): void {
  localStorage.setItem(STORAGE, choice);
  const dark = choice === 'dark' || (choice === 'system' && media.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  document.documentElement.dataset.themeChoice = choice;
}

media.addEventListener('change', () => {
  if (themeChoice() === 'system') applyTheme('system');
});
