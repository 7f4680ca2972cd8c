import type { ServerResponse } from 'node:http';

/**
 * A client that hangs up before its answer cancels the work. The response's `close` before
 * it finished is the signal (the request's own `close` also fires once its body was read).
 */
export function abortOnHangUp(response: ServerResponse): AbortController {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller;
}
