import { EXPORT_KINDS, type ExportKind } from '../api/exports.ts';
import { currentLanguage, setLanguage, t } from '../i18n/i18n.ts';

/**
 * The studio's top bar: the brand (back to the new-thread page), the open thread's title, its
 * export menu, the language toggle, the shortcuts and the settings.
 */
export function TopBar(props: {
  /** The open thread's title; nothing shown without one. */
  title: string;
  /** Exports the open thread; the export menu shows only when given (a thread is open). */
  onExport?: (kind: ExportKind) => void;
  /** The export being made: the menu says so and takes no other until it arrives. */
  exporting?: ExportKind;
  onHome(): void;
  onShortcuts(): void;
  onSettings(): void;
}) {
  const { title, onExport, exporting } = props;
  return (
    <header class="topbar">
      <a
        href="/"
        class="brand"
        onClick={(e) => {
          e.preventDefault();
          props.onHome();
        }}
      >
        <img src="/favicon.svg" alt="" width={22} height={22} />
        <span>{t('app.name')}</span>
      </a>
      {title && (
        <span class="thread-title" title={title}>
          {title}
        </span>
      )}
      <span class="spacer" />
      {onExport && (
        <details class="menu" id="export-menu">
          <summary class="button small" aria-busy={exporting !== undefined}>
            {exporting ? t('export.working', { kind: t(`export.${exporting}`) }) : t('export.title')}
          </summary>
          <div class="menu-items" role="menu">
            {EXPORT_KINDS.map((kind) => (
              <button
                type="button"
                role="menuitem"
                key={kind}
                data-export={kind}
                disabled={exporting !== undefined}
                onClick={(e) => {
                  (e.currentTarget.closest('details') as HTMLDetailsElement).open = false;
                  onExport(kind);
                }}
              >
                {t(`export.${kind}`)}
              </button>
            ))}
          </div>
        </details>
      )}
      <button
        type="button"
        class="small ghost"
        id="language-toggle"
        aria-label={t('a11y.language')}
        onClick={() => setLanguage(currentLanguage() === 'en' ? 'zh' : 'en')}
      >
        {currentLanguage() === 'en' ? '中文' : 'EN'}
      </button>
      <button
        type="button"
        class="small ghost"
        id="shortcuts-button"
        aria-label={t('shortcuts.open')}
        title={t('shortcuts.open')}
        onClick={() => props.onShortcuts()}
      >
        ?
      </button>
      <button type="button" class="small" id="settings-button" onClick={() => props.onSettings()}>
        {t('settings.title')}
      </button>
    </header>
  );
}
