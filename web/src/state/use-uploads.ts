import { useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { renamedNotice, type Upload, uploadError } from '../components/WorkspacePanel.tsx';

let uploadIds = 0;

/** How long a failed upload's row stays, so its message can be read. */
const FAILED_ROW_MS = 15_000;

/**
 * The uploads under way in the studio: each file's progress, its failure, and a way to
 * cancel it (the request is aborted and the server keeps nothing of it). `onNotice` hears of a
 * file saved under another name than the one sent (a name cut to 200 bytes, or one taken).
 */
export function useUploads(onNotice: (message: string) => void): {
  uploads: Upload[];
  /** Uploads the files into thread `threadId` at once; resolves when all have ended. */
  start(threadId: string, files: Array<{ file: File; folder: string }>): Promise<void>;
  cancel(id: number): void;
} {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const controllers = useRef(new Map<number, AbortController>());
  const without = (id: number) => setUploads((list) => list.filter((u) => u.id !== id));

  const startOne = async (threadId: string, file: File, folder: string): Promise<void> => {
    const id = ++uploadIds;
    const name = folder ? `${folder}/${file.name}` : file.name;
    const controller = new AbortController();
    controllers.current.set(id, controller);
    setUploads((list) => [...list, { id, name, fraction: 0 }]);
    try {
      const saved = await api.uploadFile(
        threadId,
        { name: file.name, data: file, folder },
        {
          onProgress: (fraction) =>
            setUploads((list) => list.map((u) => (u.id === id ? { ...u, fraction } : u))),
          abortSignal: controller.signal,
        },
      );
      const renamed = renamedNotice(name, saved.path);
      if (renamed) onNotice(renamed);
      without(id);
    } catch (error) {
      if (controller.signal.aborted) return without(id);
      const message = uploadError(error, name);
      setUploads((list) => list.map((u) => (u.id === id ? { ...u, error: message } : u)));
      setTimeout(() => without(id), FAILED_ROW_MS);
    } finally {
      controllers.current.delete(id);
    }
  };

  return {
    uploads,
    start: async (threadId, files) => {
      await Promise.all(files.map(({ file, folder }) => startOne(threadId, file, folder)));
    },
    cancel: (id) => controllers.current.get(id)?.abort(),
  };
}
