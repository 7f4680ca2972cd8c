import { Agent, request } from 'node:http';
import type { StreamRun } from './timed-stream.ts';
import { sentAt } from './timed-upstream.ts';

/**
 * The same timed chat as `timedStream`, read with node:http and a line splitter instead of
 * the `openai` client. A load generator, not a client we test: on a 2-core machine 200
 * `openai` clients (web streams, per-chunk objects) take most of a core themselves, so the
 * first chunk they measure is mostly their own queue. This one costs a fraction of that, so
 * what it measures is the server's.
 */
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

export function leanStream(baseUrl: string, model: string, message: string): Promise<StreamRun> {
  const url = new URL(`${baseUrl}/chat/completions`);
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: message }], stream: true });
  const requested = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: 'Bearer EMPTY',
        },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`HTTP ${res.statusCode}`));
          return;
        }
        const latenciesMs: number[] = [];
        const arrivals: number[] = [];
        let contentChunks = 0;
        let untimedText = '';
        let status: string | undefined;
        let rest = '';
        let done = false;
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const at = performance.now();
          const lines = (rest + text).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.startsWith('data: ')) continue;
            const data = line.slice(6);
            if (data === '[DONE]') {
              done = true;
              continue;
            }
            const chunk = JSON.parse(data) as {
              choices?: Array<{ delta?: { content?: string } }>;
              analyst?: { status?: string };
            };
            const content = chunk.choices?.[0]?.delta?.content;
            if (content) {
              contentChunks += 1;
              const sent = sentAt(content);
              if (sent === undefined) untimedText += content;
              else {
                latenciesMs.push(at - sent);
                arrivals.push(at);
              }
            }
            if (chunk.analyst?.status) status = chunk.analyst.status;
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          if (!done) {
            reject(new Error('the stream ended without [DONE]'));
            return;
          }
          const ended = performance.now();
          const first = arrivals[0] ?? Number.NaN;
          const last = arrivals[arrivals.length - 1] ?? Number.NaN;
          resolve({
            latenciesMs,
            chunksPerSecond: ((arrivals.length - 1) * 1000) / (last - first),
            contentChunks,
            firstChunkMs: first - requested,
            tailMs: ended - last,
            untimedText,
            status,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
