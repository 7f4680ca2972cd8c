import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface StreamedUploadResult {
  /** HTTP status, or 0 when the connection ended without a response. */
  status: number;
  text: string;
  /** Bytes of the file the client wrote before the response (or the end). */
  sentBytes: number;
}

/**
 * Uploads a generated file of `bytes` bytes as multipart/form-data, written to the socket
 * chunk by chunk as it drains: the client never holds the file, so multi-GiB uploads cost
 * the test no memory. Each chunk repeats `fill` (one byte value by default, so the file
 * compresses to nothing on disk only where the file system does so). `abortAfterBytes`:
 * the client hangs up after writing that many bytes of the file.
 */
export function streamedUpload(options: {
  url: string;
  path: string;
  bytes: number;
  filename?: string;
  key?: string;
  fill?: number;
  abortAfterBytes?: number;
}): Promise<StreamedUploadResult> {
  const boundary = `----analyst-test-${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.filename ?? 'big.csv'}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(1024 * 1024, options.fill ?? 0x61);
  const url = new URL(options.url);
  return new Promise((resolve) => {
    let sent = 0;
    let settled = false;
    const finish = (result: StreamedUploadResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: options.path,
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + options.bytes + tail.length),
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      },
    });
    request.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        finish({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString(), sentBytes: sent }),
      );
      response.on('error', () => finish({ status: response.statusCode ?? 0, text: '', sentBytes: sent }));
    });
    // A server that refuses early may close before the body is sent: the response (if any) says why.
    request.on('error', () => setTimeout(() => finish({ status: 0, text: '', sentBytes: sent }), 200));
    request.on('close', () => setTimeout(() => finish({ status: 0, text: '', sentBytes: sent }), 200));
    request.write(head);
    const pump = (): void => {
      while (sent < options.bytes && !request.destroyed) {
        if (options.abortAfterBytes !== undefined && sent >= options.abortAfterBytes) {
          request.destroy();
          return;
        }
        const size = Math.min(chunk.length, options.bytes - sent);
        sent += size;
        if (!request.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
          request.once('drain', pump);
          return;
        }
      }
      if (!request.destroyed) request.end(tail);
    };
    pump();
  });
}

export interface HealthProbeResult {
  /** Each /health round trip, in ms. */
  latencies: number[];
  /** The longest the event loop was blocked meanwhile (one step of main-thread work), in ms. */
  maxLoopDelayMs: number;
}

/**
 * Times GET /health every `everyMs` until stopped, and the event loop's longest delay
 * meanwhile. The test server runs in this process, so a main thread blocked by any request
 * shows in both.
 */
export function healthProbe(url: string, everyMs = 50): { stop(): Promise<HealthProbeResult> } {
  const latencies: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      delay.disable();
      return { latencies, maxLoopDelayMs: delay.max / 1e6 };
    },
  };
}

/** The `q` quantile (0–1) of `values`. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * `/health`'s median latency with nothing else going on, over `forMs`: on a loaded test
 * machine a round trip alone can take tens of milliseconds, so an attack is judged by what
 * it adds to this.
 */
export async function idleHealthMs(url: string, forMs = 1000): Promise<number> {
  const probe = healthProbe(url);
  await new Promise((r) => setTimeout(r, forMs));
  return quantile((await probe.stop()).latencies, 0.5);
}
