import { Worker } from 'node:worker_threads';

/** One kind of request a load thread repeats. */
export interface LoadRequest {
  path: string;
  /** Instead of `path` again and again: each of these in turn (a client paging through). */
  paths?: string[];
  /** Requests of this kind in flight at once, each sent again as soon as it is answered. */
  concurrency: number;
  /** Default GET. */
  method?: string;
  /** Headers of this kind, over the load's own. */
  headers?: Record<string, string>;
  /** A body; each `{n}` in it becomes a number of its own per request sent (JSON-RPC ids). */
  body?: string;
  /**
   * Instead of `body`: a multipart/form-data upload of one generated file of this many bytes,
   * written chunk by chunk as the socket drains (as `streamedUpload` does).
   */
  uploadBytes?: number;
  /** The client hangs up this long after sending, if no answer has come (counted as `hung-up`). */
  abortAfterMs?: number;
}

/** What came back for one kind: how many answers, by status, and the body sizes seen. */
export interface LoadResult {
  path: string;
  answers: number;
  /** By HTTP status, `hung-up` (the client left first) or `error` (the connection failed). */
  statuses: Record<string, number>;
  /** The `error`s by their code (ECONNRESET, EPIPE…) or message. */
  errors: Record<string, number>;
  bodyBytes: number[];
  /** The start (1,000 characters) of the first body seen with each status. */
  samples: Record<string, string>;
}

const LOADER = `
const { parentPort, workerData } = require('node:worker_threads');
// This thread's own priority (per thread on Linux): reading the answers is the client's work,
// which a remote client does on its own machine, not the server's.
require('node:os').setPriority(19);
const http = require('node:http');
const { base, requests, durationMs, headers } = workerData;
const until = Date.now() + durationMs;
const results = requests.map((r) => ({ path: r.path, answers: 0, statuses: {}, errors: {}, bodyBytes: [], samples: {} }));

// An upload over node:http: a server that refuses before reading the body may answer and
// close while the client still writes, which fetch reports as a failure without the answer.
const upload = (r, path, signal) => new Promise((resolve, reject) => {
  const boundary = '----analyst-load-' + Math.random().toString(16).slice(2);
  const head = Buffer.from('--' + boundary + '\\r\\nContent-Disposition: form-data; name="file"; filename="load.csv"\\r\\n' +
    'Content-Type: application/octet-stream\\r\\n\\r\\n');
  const tail = Buffer.from('\\r\\n--' + boundary + '--\\r\\n');
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const request = http.request(base + path, {
    method: r.method ?? 'POST',
    signal,
    agent: false,
    headers: { ...headers, ...r.headers, 'content-type': 'multipart/form-data; boundary=' + boundary,
      'content-length': String(head.length + r.uploadBytes + tail.length) },
  });
  let answered = false;
  request.on('response', (response) => {
    answered = true;
    const parts = [];
    response.on('data', (part) => parts.push(part));
    response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(parts) }));
    response.on('error', () => resolve({ status: response.statusCode, body: Buffer.concat(parts) }));
  });
  request.on('error', (error) => { if (!answered) setTimeout(() => { if (!answered) reject(error); }, 200); });
  let sent = 0;
  request.write(head);
  const pump = () => {
    while (sent < r.uploadBytes && !request.destroyed) {
      const size = Math.min(chunk.length, r.uploadBytes - sent);
      sent += size;
      if (!request.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return void request.once('drain', pump);
    }
    if (!request.destroyed) request.end(tail);
  };
  pump();
});

let sent = 0;
const send = async (r, path, signal) => {
  if (r.uploadBytes !== undefined) return upload(r, path, signal);
  sent++;
  const response = await fetch(base + path, {
    method: r.method ?? 'GET',
    headers: { ...headers, ...r.headers },
    body: r.body?.replaceAll('{n}', String(sent)),
    signal,
  });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
};

const loops = [];
requests.forEach((r, i) => {
  const result = results[i];
  const count = (status, body) => {
    result.statuses[status] = (result.statuses[status] ?? 0) + 1;
    if (body === undefined) return;
    result.answers++;
    if (result.bodyBytes.length < 1000) result.bodyBytes.push(body.length);
    result.samples[status] ??= body.subarray(0, 1000).toString();
  };
  const paths = r.paths ?? [r.path];
  for (let k = 0; k < r.concurrency; k++)
    loops.push((async () => {
      for (let n = 0; Date.now() < until; n++) {
        const controller = new AbortController();
        const timer = r.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), r.abortAfterMs);
        try {
          const { status, body } = await send(r, paths[n % paths.length], controller.signal);
          count(status, body);
        } catch (error) {
          if (controller.signal.aborted) count('hung-up');
          else {
            count('error');
            const code = error.cause?.code ?? error.code ?? error.message;
            result.errors[code] = (result.errors[code] ?? 0) + 1;
          }
        } finally {
          clearTimeout(timer);
        }
      }
    })());
});
Promise.all(loops).then(() => parentPort.postMessage(results));
`;

/**
 * Sends `requests` from a thread of its own, at the lowest CPU priority, for `durationMs`
 * (then lets the last ones finish), so that reading big answers costs the server's event loop
 * and CPU as little as it would a remote client's, when the server runs in the test's process.
 */
export function loadFromThread(
  base: string,
  requests: LoadRequest[],
  durationMs: number,
  headers: Record<string, string> = {},
): Promise<LoadResult[]> {
  const worker = new Worker(LOADER, { eval: true, workerData: { base, requests, durationMs, headers } });
  return new Promise((resolve, reject) => {
    worker.once('message', (results: LoadResult[]) => {
      void worker.terminate();
      resolve(results);
    });
    worker.once('error', reject);
  });
}
