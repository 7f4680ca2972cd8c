import { useCallback, useEffect, useState } from 'preact/hooks';

/** The thread a studio URL names: `/t/<thread id>`; anything else is the new-thread page. */
export function threadIdOfPath(pathname: string): string | undefined {
  return /^\/t\/(thread-[0-9a-f]{24})\/?$/.exec(pathname)?.[1];
}

/**
 * The URL's thread, kept in step with the history: `navigate` pushes a new entry, the back and
 * forward buttons move between them.
 */
export function useThreadRoute(): { threadId: string | undefined; navigate(id: string | undefined): void } {
  const [threadId, setThreadId] = useState(threadIdOfPath(location.pathname));
  useEffect(() => {
    const onPop = () => setThreadId(threadIdOfPath(location.pathname));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((id: string | undefined) => {
    history.pushState(null, '', id ? `/t/${id}` : '/');
    setThreadId(id);
  }, []);
  return { threadId, navigate };
}
