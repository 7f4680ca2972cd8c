import { useEffect, useState } from 'preact/hooks';
import { blobUrl } from '../api/client.ts';
import { fileUrl } from './files.ts';

/** A workspace file to show as an image; `version` names which bytes (a new one fetches again). */
export interface FileImage {
  threadId: string;
  path: string;
  version: string;
}

/**
 * A blob: URL for a workspace image (fetched with the key), or undefined while it loads, when it
 * failed, or when there is no image. Only the image asked for last is ever returned: one asked
 * for earlier that arrives late never stands in for it.
 */
export function useFileImage(image: FileImage | undefined): string | undefined {
  const key = image && JSON.stringify([image.threadId, image.path, image.version]);
  const [loaded, setLoaded] = useState<{ key: string; url: string }>();
  useEffect(() => {
    if (!image || !key) return;
    let live = true;
    void blobUrl(fileUrl(image.threadId, image.path), image.version).then(
      (url) => live && setLoaded({ key, url }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [key]);
  return loaded && loaded.key === key ? loaded.url : undefined;
}
