import { ApiError } from './api-error.ts';

/** One upload as the client hands it to its transport: the URL, the key's header, the form. */
export interface UploadRequest {
  url: string;
  headers: Record<string, string>;
  body: FormData;
  onProgress?: (fraction: number) => void;
  abortSignal?: AbortSignal;
}

/**
 * Sends an upload and gives the answer's status and text, whatever the status. It rejects
 * with an ApiError: code `cancelled` when `abortSignal` aborted, `network` when no answer came.
 */
export type UploadTransport = (request: UploadRequest) => Promise<{ status: number; text: string }>;

/** Uploads over fetch (no progress: fetch cannot report an upload's). */
export function uploadWithFetch(fetchImpl: typeof fetch): UploadTransport {
  return async (request) => {
    if (request.abortSignal?.aborted) throw cancelled();
    try {
      const response = await fetchImpl(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: request.abortSignal,
      });
      const text = await response.text();
      request.onProgress?.(1);
      return { status: response.status, text };
    } catch (error) {
      if (request.abortSignal?.aborted) throw cancelled();
      throw new ApiError(`no answer to the upload (${(error as Error).message})`, {
        status: 0,
        code: 'network',
        cause: error,
      });
    }
  };
}

export function cancelled(): ApiError {
  return new ApiError('the upload was cancelled', { status: 0, code: 'cancelled' });
}
