/**
 * The one abort error of Analyst: what a cancelled model call, cell or run throws, as the
 * platform names it (`AbortError`), so `error.name === 'AbortError'` tells a cancel from a
 * failure everywhere.
 */
export function abortError(message = 'the work was cancelled'): Error {
  return new DOMException(message, 'AbortError');
}

export function isAbortError(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'AbortError';
}
