import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';
import { useSubscription } from '../lib/hooks.ts';
import { useFileImage } from '../lib/use-file-image.ts';
import { onViewedImage, viewedImage, viewImage } from '../state/image-viewer.ts';
import { Modal } from './Dialogs.tsx';

/** A chart at full size, fitted to the window or at its own pixels, with a download. */
export function ImageViewer() {
  useSubscription(onViewedImage);
  const image = viewedImage();
  const src = useFileImage(image);
  const [actual, setActual] = useState(false);
  useEffect(() => setActual(false), [image?.threadId, image?.path, image?.version]);
  if (!image) return null;
  const name = image.path.split('/').pop() ?? image.path;
  return (
    <Modal title={image.path} onClose={() => viewImage(undefined)} id="image-viewer">
      <div class="viewer-tools">
        <button type="button" class="small ghost" id="viewer-size" onClick={() => setActual(!actual)}>
          {actual ? t('viewer.fit') : t('viewer.actual')}
        </button>
        {src && (
          <a class="button small" id="viewer-download" href={src} download={name}>
            {t('viewer.download')}
          </a>
        )}
      </div>
      <div class={`viewer-body${actual ? ' actual' : ''}`}>
        {src ? <img src={src} alt={image.path} /> : <p class="muted">{t('inspector.loading')}</p>}
      </div>
    </Modal>
  );
}
