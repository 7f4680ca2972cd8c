import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import { useSubscription } from '../lib/hooks.ts';
import { ThreadSession } from './thread-session.ts';

/**
 * The open thread of `threadId`: opened when the id changes (the one before is closed: its
 * streams stop, the runs go on), re-rendering the caller on each of its changes, and brought up
 * to date when the page comes back into view (another tab may have asked something meanwhile).
 * `adopt` takes a session the page just made, so it is not opened a second time.
 */
export function useThreadSession(
  threadId: string | undefined,
  onError: (error: ApiError) => void,
): { session?: ThreadSession; missing: boolean; adopt(session: ThreadSession): void } {
  const [session, setSession] = useState<ThreadSession>();
  const [missing, setMissing] = useState(false);
  const made = useRef<ThreadSession | undefined>(undefined);
  const failed = useRef(onError);
  failed.current = onError;

  const subscribe = useCallback(
    (listener: () => void) => session?.subscribe(listener) ?? (() => {}),
    [session],
  );
  useSubscription(subscribe);

  useEffect(() => {
    let live = true;
    setMissing(false);
    if (!threadId) {
      setSession(undefined);
      return;
    }
    if (made.current?.id === threadId) {
      setSession(made.current);
      made.current = undefined;
      return;
    }
    ThreadSession.open(threadId).then(
      (opened) => {
        if (!live) return opened.close();
        setSession(opened);
      },
      (error: ApiError) => {
        if (!live) return;
        setSession(undefined);
        if (error.status === 404) setMissing(true);
        else failed.current(error);
      },
    );
    return () => {
      live = false;
    };
  }, [threadId]);
  useEffect(() => () => session?.close(), [session]);

  useEffect(() => {
    if (!session) return;
    const sync = () => {
      if (document.visibilityState === 'visible') void session.syncRuns().catch(() => {});
    };
    addEventListener('focus', sync);
    document.addEventListener('visibilitychange', sync);
    return () => {
      removeEventListener('focus', sync);
      document.removeEventListener('visibilitychange', sync);
    };
  }, [session]);

  const adopt = useCallback((opened: ThreadSession) => {
    made.current = opened;
    setSession(opened);
  }, []);
  return { session, missing, adopt };
}
