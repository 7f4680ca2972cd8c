import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';
import type { RevisionMark } from '../state/questions.ts';

/**
 * A question of the conversation, with its Edit action (docs/spec.md#revisions): the text
 * turns into a box; "Run again" (or Enter) asks the edited question from where this one was
 * asked, Cancel (or Esc) leaves it as it was. The earlier answer stays where it is.
 */
export function Question(props: {
  text: string;
  /** Shown beside "You" on a question that edits or regenerates an earlier one. */
  mark: RevisionMark | undefined;
  /** Whether Edit is offered (the question is stored, and this is not a cell's re-run). */
  editable: boolean;
  /** A run is going on the thread: "Run again" waits for it. */
  busy: boolean;
  /** Resolves true when the new run started (the box closes). */
  onRunAgain: (text: string) => Promise<boolean>;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.text);
  const [sending, setSending] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  // Before the box is painted: a deferred effect could move the caret after the first
  // keystrokes (or a select-all) landed, splicing the new text onto the old.
  useLayoutEffect(() => {
    if (!editing) return;
    const el = area.current;
    el?.focus();
    el?.setSelectionRange(el.value.length, el.value.length);
  }, [editing]);

  const open = () => {
    setDraft(props.text);
    setEditing(true);
  };
  const runAgain = async () => {
    const text = draft.trim();
    if (!text || props.busy || sending) return;
    setSending(true);
    try {
      if (await props.onRunAgain(text)) setEditing(false);
    } finally {
      setSending(false);
    }
  };

  if (editing) {
    return (
      <form
        class="question editing"
        onSubmit={(e) => {
          e.preventDefault();
          void runAgain();
        }}
      >
        <span class="who">{t('chat.you')}</span>
        <textarea
          ref={area}
          class="edit-question"
          rows={Math.min(8, Math.max(2, draft.split('\n').length))}
          value={draft}
          aria-label={t('chat.editQuestion')}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              // Esc here leaves the edit; it must not also stop a running analysis.
              e.preventDefault();
              e.stopPropagation();
              setEditing(false);
            } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void runAgain();
            }
          }}
        />
        <div class="edit-actions">
          <button type="button" class="small" onClick={() => setEditing(false)}>
            {t('chat.cancelEdit')}
          </button>
          <button
            type="submit"
            class="primary small run-again"
            disabled={!draft.trim() || props.busy || sending}
            title={props.busy ? t('chat.busy') : undefined}
          >
            {t('chat.runAgain')}
          </button>
        </div>
      </form>
    );
  }
  return (
    <div class="question">
      <span class="who">
        {t('chat.you')}
        {props.mark && <span class="revision-mark"> · {t(`chat.${props.mark}`)}</span>}
      </span>
      <p>{props.text}</p>
      {props.editable && (
        <button
          type="button"
          class="ghost icon edit"
          title={t('chat.editQuestion')}
          aria-label={t('chat.editQuestion')}
          onClick={open}
        >
          ✎
        </button>
      )}
    </div>
  );
}
