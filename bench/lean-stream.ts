import { Agent, request } from 'node:http';
import { StreamRecorder, type StreamRun } from './timed-stream.ts';

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
  const recorder = new StreamRecorder(); // from the request's send, as timedStream
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
            recorder.add(JSON.parse(data), at);
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          if (!done) {
            reject(new Error('the stream ended without [DONE]'));
            return;
          }
          resolve(recorder.finish());
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
