import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Model } from '../api/types.ts';
import { onChange } from './changes.ts';

/** The server's models, read at start and again once a key is given. */
export function useModels(): Model[] {
  const [models, setModels] = useState<Model[]>([]);
  useEffect(() => {
    let live = true;
    const load = () =>
      void api.listModels().then(
        (list) => live && setModels(list.data),
        () => {},
      );
    load();
    const off = onChange(['key'], load);
    return () => {
      live = false;
      off();
    };
  }, []);
  return models;
}
