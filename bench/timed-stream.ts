import OpenAI from 'openai';
import { planMessage, sentAt } from './timed-upstream.ts';

/** One streamed chat as the client saw it, against bench/timed-upstream.ts (directly or through Analyst). */
export interface StreamRun {
  /** Arrival − send time of each timed chunk, in ms (sender and reader share a clock). */
  latenciesMs: number[];
  /** Timed chunks per second, from the first timed chunk's arrival to the last's. */
  chunksPerSecond: number;
  /** Chunks that carried content (timed or not). */
  contentChunks: number;
  /** Request sent → first timed chunk. */
  firstChunkMs: number;
  /** Last timed chunk → end of the stream ([DONE] read). */
  tailMs: number;
  untimedText: string;
  /** `analyst.status` of the final chunk (through Analyst only). */
  status: string | undefined;
}

/** The official client, with every credential explicit (nothing read from the environment). */
export function openaiClient(baseURL: string): OpenAI {
  return new OpenAI({
    baseURL,
    apiKey: 'EMPTY',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
  });
}

/** The streamed chunks as a client saw them, made into a StreamRun (whichever client read them). */
export class StreamRecorder {
  private readonly latenciesMs: number[] = [];
  private readonly arrivals: number[] = [];
  private contentChunks = 0;
  private untimedText = '';
  private status: string | undefined;
  private readonly requested = performance.now();

  /** One parsed chunk, handed over at `at`. */
  add(
    chunk: { choices?: Array<{ delta?: { content?: string | null } }>; analyst?: { status?: string } },
    at: number,
  ) {
    const text = chunk.choices?.[0]?.delta?.content;
    if (text) {
      this.contentChunks += 1;
      const sent = sentAt(text);
      if (sent === undefined) this.untimedText += text;
      else {
        this.latenciesMs.push(at - sent);
        this.arrivals.push(at);
      }
    }
    if (chunk.analyst?.status) this.status = chunk.analyst.status;
  }

  /** The run, once its end ([DONE]) was read. */
  finish(): StreamRun {
    const ended = performance.now();
    const first = this.arrivals[0] ?? Number.NaN;
    const last = this.arrivals[this.arrivals.length - 1] ?? Number.NaN;
    return {
      latenciesMs: this.latenciesMs,
      chunksPerSecond: ((this.arrivals.length - 1) * 1000) / (last - first),
      contentChunks: this.contentChunks,
      firstChunkMs: first - this.requested,
      tailMs: ended - last,
      untimedText: this.untimedText,
      status: this.status,
    };
  }
}

/** One streamed chat, timed chunk by chunk as the `openai` client hands the chunks over. */
export async function timedStream(
  client: OpenAI,
  model: string,
  chunks: number,
  gapMs: number,
): Promise<StreamRun> {
  const recorder = new StreamRecorder();
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: planMessage(chunks, gapMs) }],
    stream: true,
  });
  for await (const chunk of stream) recorder.add(chunk, performance.now());
  return recorder.finish();
}

/**
 * A stream that must arrive whole: every timed chunk as a chunk of its own (so Analyst
 * relayed each upstream delta as one SSE event), then the answer; through Analyst, a
 * completed run. Throws otherwise.
 */
export async function checkedStream(
  client: OpenAI,
  model: string,
  chunks: number,
  gapMs: number,
  throughAnalyst: boolean,
): Promise<StreamRun> {
  return checkRun(await timedStream(client, model, chunks, gapMs), chunks, throughAnalyst);
}

/** The checks of `checkedStream`, for a run read by any client. */
export function checkRun(run: StreamRun, chunks: number, throughAnalyst: boolean): StreamRun {
  const problems: string[] = [];
  if (run.latenciesMs.length !== chunks) problems.push(`${run.latenciesMs.length} of ${chunks} timed chunks`);
  if (run.contentChunks !== chunks + 1)
    problems.push(`${run.contentChunks} content chunks, not ${chunks + 1}`);
  if (run.untimedText !== '\n<Answer>done</Answer>') problems.push(`text ${JSON.stringify(run.untimedText)}`);
  if (throughAnalyst && run.status !== 'completed') problems.push(`run status ${run.status}`);
  if (problems.length)
    throw new Error(`bench stream ${throughAnalyst ? 'through Analyst' : 'direct'}: ${problems.join(', ')}`);
  return run;
}
