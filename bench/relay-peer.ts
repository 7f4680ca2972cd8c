import type OpenAI from 'openai';
import { leanStream } from './lean-stream.ts';
import { checkedStream, checkRun, openaiClient, type StreamRun } from './timed-stream.ts';
import { planMessage, startTimedUpstream, UPSTREAM_MODEL } from './timed-upstream.ts';

/**
 * The split relay bench's far side, a child process (IPC): the timed upstream and the
 * reading client on their own event loop, the Analyst server alone in the bench's
 * process, as in a deployment where the model and the client are elsewhere. Sender and
 * reader share this process's clock. Sends `{ upstreamUrl }` once, then answers each
 * StreamRequest with `{ id, run }` or `{ id, error }`; 'cold' closes its upstream's idle
 * connections (answered with `{ cold: true }`); 'close' ends it.
 */
export interface StreamRequest {
  id: number;
  path: 'direct' | 'through';
  chunks: number;
  gapMs: number;
  /** Analyst's base URL (…/v1) and the model id that points at this process's upstream. */
  analystUrl: string;
  analystModel: string;
  /** The reading client: the official one, or bench/lean-stream.ts (a cheap load generator). */
  client?: 'openai' | 'lean';
}

export type PeerMessage =
  | { upstreamUrl: string }
  | { cold: true }
  | { id: number; run: StreamRun; failures: string[] }
  | { id: number; error: string };

const send = (message: PeerMessage) => process.send?.(message);
if (!process.send) throw new Error('relay-peer.ts runs as a child process with an IPC channel');
const upstream = await startTimedUpstream();
const direct = openaiClient(upstream.url);
let analyst: { url: string; client: OpenAI } | undefined;
process.on('message', (request: StreamRequest | 'close' | 'cold') => {
  if (request === 'close') {
    void upstream.close().then(() => process.disconnect());
    return;
  }
  if (request === 'cold') {
    upstream.closeIdle();
    send({ cold: true });
    return;
  }
  if (analyst?.url !== request.analystUrl)
    analyst = { url: request.analystUrl, client: openaiClient(request.analystUrl) };
  const run =
    request.client === 'lean'
      ? leanStream(
          request.path === 'direct' ? upstream.url : request.analystUrl,
          request.path === 'direct' ? UPSTREAM_MODEL : request.analystModel,
          planMessage(request.chunks, request.gapMs),
        ).then((result) => checkRun(result, request.chunks, request.path === 'through'))
      : request.path === 'direct'
        ? checkedStream(direct, UPSTREAM_MODEL, request.chunks, request.gapMs, false)
        : checkedStream(analyst.client, request.analystModel, request.chunks, request.gapMs, true);
  run.then(
    (result) => send({ id: request.id, run: result, failures: upstream.failures }),
    (error: unknown) => send({ id: request.id, error: String(error) }),
  );
});
send({ upstreamUrl: upstream.url });
