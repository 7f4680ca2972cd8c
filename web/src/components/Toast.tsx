import { t } from '../i18n/i18n.ts';
import type { Notice } from '../state/use-notice.ts';

/** The studio's one message (state/use-notice.ts): a failure, or news shown calmer (`info`). */
export function Toast(props: { notice: Notice; onClose(): void }) {
  return (
    <div class={props.notice.info ? 'toast info' : 'toast'} role="alert">
      <span>{props.notice.text}</span>
      <button type="button" class="ghost icon" aria-label={t('a11y.close')} onClick={() => props.onClose()}>
        ×
      </button>
    </div>
  );
}
