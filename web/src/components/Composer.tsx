import { useRef, useState } from 'preact/hooks';
import type { WorkspaceFile } from '../api/types.ts';
import type { MessageKey } from '../i18n/catalogue.ts';
import { formatBytes, t } from '../i18n/i18n.ts';
import { useScrollCue } from '../lib/scroll-cue.ts';

const PRESETS = ['eda', 'cleaning', 'viz', 'stats', 'sql', 'summary'] as const;

/**
 * The question box: Enter sends, Shift+Enter is a new line, Esc stops a running analysis.
 * Presets insert their text at the cursor (after what was typed), never replacing it. The
 * chips above show the files the model will be told about (the workspace's top level).
 */
export function Composer(props: {
  files: WorkspaceFile[];
  generated: Set<string>;
  running: boolean;
  disabled: boolean;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  onOpenFile: (path: string) => void;
}) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const chips = useRef<HTMLDivElement>(null);
  const presets = useRef<HTMLFieldSetElement>(null);
  const seen = props.files.filter((f) => !f.path.includes('/'));
  useScrollCue(chips, [seen.length]);
  useScrollCue(presets);

  const send = async () => {
    const question = text.trim();
    if (!question || props.running || sending || props.disabled) return;
    setSending(true);
    try {
      if (await props.onSend(question)) setText('');
    } finally {
      setSending(false);
      area.current?.focus();
    }
  };

  const insert = (preset: string) => {
    const el = area.current;
    const prompt = t(`preset.${preset}.prompt` as MessageKey);
    if (!el) return setText((current) => (current ? `${current}\n${prompt}` : prompt));
    const start = el.selectionStart ?? text.length;
    const end = el.selectionEnd ?? text.length;
    // A selection is kept too: the preset goes after it.
    const at = Math.max(start, end);
    const before = text.slice(0, at);
    const after = text.slice(at);
    const glue = before && !before.endsWith('\n') ? '\n' : '';
    const next = `${before}${glue}${prompt}${after}`;
    setText(next);
    // Focus moves with the keystroke (an Enter that follows at once must land in the box, not on
    // the preset again); the caret is placed once the new text is rendered.
    el.focus();
    requestAnimationFrame(() => {
      const caret = before.length + glue.length + prompt.length;
      el.setSelectionRange(caret, caret);
    });
  };

  return (
    <div class="composer">
      <div class="chips" ref={chips}>
        {seen.length ? (
          <>
            <span class="muted">{t('files.seenByModel')}:</span>
            {seen.map((f) => (
              <button
                type="button"
                class="chip"
                key={f.path}
                onClick={() => props.onOpenFile(f.path)}
                title={f.path}
              >
                <span class={`dot ${props.generated.has(f.path) ? 'generated' : 'uploaded'}`} />
                {f.path} <span class="muted">{formatBytes(f.bytes)}</span>
              </button>
            ))}
          </>
        ) : (
          <span class="muted">{t('files.noneSeen')}</span>
        )}
      </div>
      <fieldset class="presets" ref={presets} aria-label={t('chat.presets')}>
        {PRESETS.map((p) => (
          <button type="button" class="preset" key={p} onClick={() => insert(p)} data-preset={p}>
            {t(`preset.${p}` as MessageKey)}
          </button>
        ))}
      </fieldset>
      <div class="input-row">
        <textarea
          ref={area}
          id="question"
          rows={3}
          value={text}
          placeholder={t('chat.placeholder')}
          aria-label={t('chat.placeholder')}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        {props.running ? (
          <button type="button" class="danger" onClick={props.onStop} id="stop">
            {t('chat.stop')}
          </button>
        ) : (
          <button
            type="button"
            class="primary"
            onClick={() => void send()}
            disabled={!text.trim() || sending || props.disabled}
            id="send"
          >
            {t('chat.send')}
          </button>
        )}
      </div>
    </div>
  );
}
