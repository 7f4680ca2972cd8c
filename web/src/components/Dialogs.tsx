import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Model, ThreadSettings } from '../api/types.ts';
import type { Language } from '../i18n/catalogue.ts';
import { currentLanguage, setLanguage, t } from '../i18n/i18n.ts';
import { applyTheme, type ThemeChoice, themeChoice } from '../lib/theme.ts';

/** A modal dialog (the native <dialog>: focus stays inside, Esc closes it). */
export function Modal(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  id?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const mounted = useRef(true);
  useEffect(() => {
    const dialog = ref.current;
    mounted.current = true;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      mounted.current = false;
      dialog?.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="modal"
      id={props.id}
      aria-label={props.title}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
      // Chromium closes a dialog on Esc without a cancelable cancel event when the page has had
      // no user activation since the last one: the app must still learn that it is gone, or
      // opening the same dialog again would change no state and show nothing.
      onClose={() => {
        if (mounted.current) props.onClose();
      }}
    >
      <div class="modal-head">
        <h2>{props.title}</h2>
        <button type="button" class="ghost icon" aria-label={t('a11y.close')} onClick={props.onClose}>
          ×
        </button>
      </div>
      {props.children}
    </dialog>
  );
}

export function ConfirmDialog(props: { message: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <Modal title={t('dialog.confirm')} onClose={props.onCancel} id="confirm-dialog">
      <p>{props.message}</p>
      <div class="modal-actions">
        <button type="button" onClick={props.onCancel}>
          {t('dialog.cancel')}
        </button>
        <button type="button" class="danger" onClick={props.onConfirm} id="confirm">
          {t('dialog.confirm')}
        </button>
      </div>
    </Modal>
  );
}

export function KeyDialog(props: { invalid: boolean; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <Modal title={t('key.title')} onClose={() => {}} id="key-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) props.onSubmit(key.trim());
        }}
      >
        <p>{t('key.body')}</p>
        {props.invalid && (
          <p class="error-line" role="alert">
            {t('key.invalid')}
          </p>
        )}
        <label class="field">
          <span>{t('key.label')}</span>
          <input
            type="password"
            autocomplete="off"
            value={key}
            id="api-key"
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </label>
        <div class="modal-actions">
          <button type="submit" class="primary" disabled={!key.trim()}>
            {t('key.submit')}
          </button>
        </div>
      </form>
    </Modal>
  );
}

const SHORTCUTS: Array<[string[], Parameters<typeof t>[0]]> = [
  [['Enter'], 'shortcuts.send'],
  [['Shift + Enter'], 'shortcuts.newline'],
  [['Esc'], 'shortcuts.stop'],
  [['Ctrl + K'], 'shortcuts.search'],
  [['Alt + N'], 'shortcuts.newThread'],
  [['Alt + U'], 'shortcuts.upload'],
  [['?', 'Ctrl + /'], 'shortcuts.help'],
];

export function ShortcutsDialog(props: { onClose: () => void }) {
  return (
    <Modal title={t('shortcuts.title')} onClose={props.onClose} id="shortcuts-dialog">
      <dl class="shortcuts">
        {SHORTCUTS.map(([keys, label]) => (
          <div key={label}>
            <dt>
              {keys.map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
            </dt>
            <dd>{t(label)}</dd>
          </div>
        ))}
      </dl>
    </Modal>
  );
}

/** Model, temperature and system prompt (kept in the thread's metadata), language and theme (this browser). */
export function SettingsDialog(props: {
  models: Model[];
  model: string | undefined;
  settings: ThreadSettings;
  onChange: (model: string | undefined, settings: ThreadSettings) => void;
  onClose: () => void;
}) {
  const [theme, setTheme] = useState<ThemeChoice>(themeChoice());
  const chosen = props.model ?? props.models.find((m) => m.default)?.id;
  return (
    <Modal title={t('settings.title')} onClose={props.onClose} id="settings-dialog">
      <div class="settings">
        <label class="field">
          <span>{t('settings.model')}</span>
          <select
            id="model-select"
            value={chosen}
            onChange={(e) => props.onChange((e.target as HTMLSelectElement).value, props.settings)}
          >
            {props.models.map((m) => (
              <option value={m.id} key={m.id}>
                {m.id} — {t('settings.protocol', { protocol: m.protocol })}
                {m.default ? ` (${t('settings.default')})` : ''}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>
            {t('settings.temperature')}:{' '}
            <output id="temperature-value">
              {props.settings.temperature ?? t('settings.temperatureDefault')}
            </output>
            {props.settings.temperature !== undefined && (
              <button
                type="button"
                class="ghost small"
                id="temperature-reset"
                onClick={() => props.onChange(props.model, { ...props.settings, temperature: undefined })}
              >
                {t('settings.temperatureReset')}
              </button>
            )}
          </span>
          {/* Unset, the model's own default applies: the slider is shown dimmed, not at a value it is not. */}
          <input
            type="range"
            min={0}
            max={2}
            step={0.1}
            id="temperature"
            class={props.settings.temperature === undefined ? 'unset' : undefined}
            value={props.settings.temperature ?? 1}
            onInput={(e) =>
              props.onChange(props.model, {
                ...props.settings,
                temperature: Number((e.target as HTMLInputElement).value),
              })
            }
          />
        </label>
        <label class="field">
          <span>{t('settings.system')}</span>
          <textarea
            rows={4}
            id="system-prompt"
            value={props.settings.system ?? ''}
            onChange={(e) =>
              props.onChange(props.model, {
                ...props.settings,
                system: (e.target as HTMLTextAreaElement).value,
              })
            }
          />
        </label>
        <p class="muted">{t('settings.saved')}</p>
        <fieldset class="field">
          <legend>{t('settings.language')}</legend>
          <div class="segmented">
            {(['en', 'zh'] as Language[]).map((l) => (
              <button
                type="button"
                key={l}
                id={`lang-${l}`}
                class={currentLanguage() === l ? 'active' : ''}
                aria-pressed={currentLanguage() === l}
                onClick={() => setLanguage(l)}
              >
                {l === 'en' ? 'English' : '中文'}
              </button>
            ))}
          </div>
        </fieldset>
        <fieldset class="field">
          <legend>{t('settings.theme')}</legend>
          <div class="segmented">
            {(['light', 'dark', 'system'] as ThemeChoice[]).map((choice) => (
              <button
                type="button"
                key={choice}
                id={`theme-${choice}`}
                class={theme === choice ? 'active' : ''}
                aria-pressed={theme === choice}
                onClick={() => {
                  applyTheme(choice);
                  setTheme(choice);
                }}
              >
                {t(
                  choice === 'system'
                    ? 'settings.system_theme'
                    : choice === 'light'
                      ? 'settings.light'
                      : 'settings.dark',
                )}
              </button>
            ))}
          </div>
        </fieldset>
      </div>
      <div class="modal-actions">
        <button type="button" class="primary" onClick={props.onClose}>
          {t('settings.close')}
        </button>
      </div>
    </Modal>
  );
}
