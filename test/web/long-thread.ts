import { randomBytes } from 'node:crypto';
import type { AgentEvent } from '../../src/agent/events.ts';
import type { ScriptInput } from '../../src/llm/scripted/script.ts';
import type { TestServer } from '../server/helpers.ts';
import { SALES_CSV } from './scripts.ts';

/**
 * A long thread for the "200 steps stay smooth" checks (the browser test and `npm run bench -- ui`).
 * One real run goes through the scripted model and the real sandbox (six steps: prose, a cell
 * with 24 lines of output, prose, a cell, prose, an answer with a table); its stored events are
 * then written again, as further runs of the same thread, through the store's own calls (the ones
 * the run service makes), with fresh run and cell ids. Running a hundred cells in Docker would
 * take minutes here, and the page only ever reads stored events.
 */

const SEED = 'Seed the long thread';
/** A question the long thread's script answers with prose only, streamed in small chunks for a few seconds. */
export const STREAM_QUESTION = 'Stream a note';
export const STREAM_ANSWER = 'Streamed once.';

export const LONG_THREAD_TURNS: ScriptInput['turns'] = [
  {
    when: { last_role: 'user', last_contains: SEED },
    content: [
      '<Analyze>Load the sales file and print its rows.</Analyze>',
      '<Code>',
      'import csv',
      "rows = list(csv.DictReader(open('sales.csv')))",
      'for i in range(24):',
      "    print('row', i, rows[i % len(rows)])",
      '</Code>',
    ].join('\n'),
  },
  {
    when: { last_role: 'execute', last_contains: 'row 23' },
    content: [
      '<Understand>Twenty-four rows are printed; next the totals.</Understand>',
      '<Code>',
      'import csv',
      'totals = {}',
      "for r in csv.DictReader(open('sales.csv')):",
      "    totals[r['region']] = totals.get(r['region'], 0) + int(r['amount'])",
      "print('totals by region', totals)",
      '</Code>',
    ].join('\n'),
  },
  {
    when: { last_role: 'execute', last_contains: 'totals by region' },
    content:
      '<Understand>North leads.</Understand>\n<Answer>## Totals\n\n| region | total |\n| --- | --- |\n| north | 40 |\n| south | 25 |\n\nNorth sells most.</Answer>',
  },
  {
    when: { last_role: 'user', last_contains: STREAM_QUESTION },
    content: `<Analyze>${'Reading the thread so far and writing a short note about it. '.repeat(12)}</Analyze>\n<Answer>${STREAM_ANSWER}</Answer>`,
    chunk_chars: 4,
    chunk_delay_ms: 8,
  },
];

/** Steps one seeded run shows (prose, cell, prose, cell, prose, answer). */
export const STEPS_PER_RUN = 6;

const json = { 'content-type': 'application/json' };

async function waitForRun(server: TestServer, threadId: string, runId: string): Promise<string> {
  // Reading the event stream to its end waits for the run (it closes after run-end).
  await (await server.fetch(`/v1/threads/${threadId}/runs/${runId}/events`)).text();
  const run = (await (await server.fetch(`/v1/threads/${threadId}/runs/${runId}`)).json()) as {
    status: string;
    reason: string | null;
  };
  return run.status === 'completed' ? run.status : `${run.status} (${run.reason})`;
}

/** Makes a thread of `runs` runs of six steps each; returns its id and how many steps it shows. */
export async function seedLongThread(
  server: TestServer,
  options: { runs: number },
): Promise<{ threadId: string; runs: number; steps: number }> {
  const thread = (await (
    await server.fetch('/v1/threads', { method: 'POST', headers: json, body: '{"title":"A long thread"}' })
  ).json()) as { id: string };
  const form = new FormData();
  form.append('file', new Blob([SALES_CSV]), 'sales.csv');
  const upload = await server.fetch(`/v1/threads/${thread.id}/files`, { method: 'POST', body: form });
  if (!upload.ok) throw new Error(`upload: HTTP ${upload.status}`);
  const started = (await (
    await server.fetch(`/v1/threads/${thread.id}/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ messages: [{ role: 'user', content: SEED }] }),
    })
  ).json()) as { id: string };
  const status = await waitForRun(server, thread.id, started.id);
  if (status !== 'completed') throw new Error(`the seed run ended ${status}`);

  const { store } = server.service.deps;
  const record = (await store.getRun(started.id))!;
  const events = await store.runEvents(started.id);
  const messages = (await store.listMessages(thread.id)).filter((m) => m.run_id === started.id);
  const cells = [...new Set(events.flatMap(({ event }) => ('cell_id' in event ? [event.cell_id] : [])))];
  for (let copy = 1; copy < options.runs; copy++) {
    const runId = `run-${randomBytes(12).toString('hex')}`;
    let text = JSON.stringify(events).replaceAll(started.id, runId);
    for (const cell of cells) text = text.replaceAll(`"${cell}"`, `"${cell}-${copy}"`);
    const copied = JSON.parse(text) as Array<{ seq: number; event: AgentEvent }>;
    await store.createRun({
      id: runId,
      thread_id: thread.id,
      model: record.model,
      protocol: record.protocol,
    });
    await store.appendEvents(runId, copied);
    await store.finishRun(runId, {
      status: record.status,
      reason: record.reason,
      usage: record.usage,
      answer: record.answer,
    });
    for (const message of messages) {
      await store.addMessage({
        id: `msg-${randomBytes(12).toString('hex')}`,
        thread_id: thread.id,
        role: message.role,
        content: message.content,
        file_ids: message.file_ids,
        run_id: runId,
      });
    }
  }
  return { threadId: thread.id, runs: options.runs, steps: options.runs * STEPS_PER_RUN };
}
