import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABELS } from '../../src/sandbox/docker/labels.ts';
import { docker } from '../helpers/sandbox.ts';
import type { StoreKind } from '../helpers/stores.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';

/** Four keys, as the issue asks: many short chats from each. */
export const SOAK_KEYS = [
  'soak-key-aaaaaaaaaaaa1',
  'soak-key-bbbbbbbbbbbb2',
  'soak-key-cccccccccccc3',
  'soak-key-dddddddddddd4',
] as const;

const script = {
  mode: 'match' as const,
  turns: [
    {
      when: { last_role: 'execute' },
      content: '<Answer>The file has 2 rows; soak done.</Answer>',
      chunk_chars: 4,
      chunk_delay_ms: 15,
    },
    {
      when: { last_contains: 'soak' },
      content:
        '<Analyze>I will count the rows of the uploaded table before I answer.</Analyze>\n<Code>\nimport glob\nprint(len(glob.glob("*")))\n</Code>',
      chunk_chars: 4,
      chunk_delay_ms: 15,
    },
  ],
};

export interface SoakOptions {
  durationMs: number;
  /** Clients per key at once. */
  clientsPerKey: number;
  store?: StoreKind;
  /** Chance a chat's client hangs up mid-stream. */
  disconnectRate?: number;
  seed?: number;
}

export interface SoakResult {
  chats: number;
  completed: number;
  disconnected: number;
  uploads: number;
  cells: number;
  /** Requests refused by a per-key limit (429): allowed, not lost. */
  limited: number;
  /** Milliseconds of each completed chat, first byte to [DONE]. */
  chatMs: number[];
  threads: number;
}

/** What the server acknowledged, checked once the load is over. */
interface Acknowledged {
  files: Map<string, { key: string; sha256: string }>;
  /** Questions whose chat was answered 200 (the stream began), by key: each must be stored. */
  questions: Map<string, Set<string>>;
  /** Threads the last chunk of a completed chat named: its key and how many chats completed. */
  threads: Map<string, { key: string; completed: number }>;
}

/** A deterministic PRNG (mulberry32), so a failing soak can be replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Many short chats (streaming, with a cell each) from four keys at once, with uploads and
 * cells in between and clients that hang up at random points; then checks that nothing
 * acknowledged was lost (every upload readable with its bytes, every thread a chat named
 * present with its questions, every completed chat's answer stored, no run left running)
 * and, once the server is closed, that no container of it and no socket directory of its
 * threads is left.
 */
export async function soak(options: SoakOptions): Promise<SoakResult> {
  const next = random(options.seed ?? 14);
  const disconnectRate = options.disconnectRate ?? 0.3;
  const server = await startTestServer({
    store: options.store,
    script,
    env: {
      ANALYST_API_KEYS: SOAK_KEYS.join(','),
      // Small enough that the load reaches some of them (a 429 is an answer, not a loss).
      ANALYST_LIMIT_RUNS: '2',
      ANALYST_LIMIT_SESSIONS: '3',
      ANALYST_LIMIT_THREADS: '40',
      ANALYST_POOL_SESSION: '2',
    },
  });
  const instance = (server.service.deps.sandbox as unknown as { instanceId?: string }).instanceId;
  const acknowledged: Acknowledged = {
    files: new Map(),
    questions: new Map(SOAK_KEYS.map((k) => [k, new Set<string>()])),
    threads: new Map(),
  };
  const result: SoakResult = {
    chats: 0,
    completed: 0,
    disconnected: 0,
    uploads: 0,
    cells: 0,
    limited: 0,
    chatMs: [],
    threads: 0,
  };
  const deadline = Date.now() + options.durationMs;
  const fail = (what: string, response: Response, text: string) => {
    throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
  };
  const own = (key: string) => [...acknowledged.threads].filter(([, t]) => t.key === key).map(([id]) => id);

  async function client(key: string): Promise<void> {
    const headers = { authorization: `Bearer ${key}` };
    while (Date.now() < deadline) {
      const roll = next();
      if (roll < 0.15) {
        const content = `region,total\nNorth,${Math.floor(next() * 1000)}\nSouth,1\n`;
        const form = new FormData();
        form.append('purpose', 'file-extract');
        form.append('file', new Blob([content]), 'sales.csv');
        const response = await server.fetch('/v1/files', { method: 'POST', body: form, headers });
        const text = await response.text();
        if (response.status === 429) result.limited += 1;
        else if (response.status !== 200) fail('upload', response, text);
        else {
          const id = (JSON.parse(text) as { id: string }).id;
          acknowledged.files.set(id, { key, sha256: createHash('sha256').update(content).digest('hex') });
          result.uploads += 1;
        }
        continue;
      }
      const threads = own(key);
      if (roll < 0.35 && threads.length) {
        const thread = threads[Math.floor(next() * threads.length)]!;
        const response = await server.fetch(`/v1/threads/${thread}/exec`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ code: 'print(6 * 7)' }),
        });
        const text = await response.text();
        // 409: a chat of this key runs on the thread just now.
        if (response.status === 429 || response.status === 409) result.limited += 1;
        else if (response.status !== 200) fail('exec', response, text);
        else {
          assert.match(text, /42/);
          result.cells += 1;
        }
        continue;
      }
      await chat(key, threads);
    }
  }

  async function chat(key: string, threads: string[]): Promise<void> {
    const reuse = threads.length > 0 && next() < 0.4;
    const threadId = reuse ? threads[Math.floor(next() * threads.length)] : undefined;
    const question = `soak question ${Math.floor(next() * 1e9)}`;
    const hangUpAfter = next() < disconnectRate ? 1 + Math.floor(next() * 30) : Number.POSITIVE_INFINITY;
    const controller = new AbortController();
    const started = Date.now();
    result.chats += 1;
    const response = await server.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        stream: true,
        messages: [{ role: 'user', content: question }],
        ...(threadId ? { thread_id: threadId } : {}),
      }),
      signal: controller.signal,
    });
    if (response.status === 429 || response.status === 409) {
      await response.text();
      result.limited += 1;
      return;
    }
    if (response.status !== 200) fail('chat', response, await response.text());
    acknowledged.questions.get(key)!.add(question);
    let named: string | undefined;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    let chunks = 0;
    let done = false;
    try {
      while (!done) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        buffered += decoder.decode(value, { stream: true });
        let cut = buffered.indexOf('\n\n');
        while (cut >= 0) {
          const frame = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          cut = buffered.indexOf('\n\n');
          const data = frame.replace(/^data: /, '');
          if (data === '[DONE]') {
            done = true;
            break;
          }
          const chunk = JSON.parse(data) as { choices: Array<{ delta: { thread_id?: string } }> };
          chunks += 1;
          // The last content chunk names the thread (a new thread's id is known only then).
          named = chunk.choices[0]?.delta.thread_id ?? named;
          if (chunks >= hangUpAfter) {
            controller.abort();
            result.disconnected += 1;
            return;
          }
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      return;
    }
    assert.ok(done, 'a chat that was not hung up ends with [DONE]');
    result.completed += 1;
    result.chatMs.push(Date.now() - started);
    assert.ok(named, 'a completed chat names its thread');
    if (threadId) assert.equal(named, threadId, 'a chat on a thread answers on it');
    const entry = acknowledged.threads.get(named) ?? { key, completed: 0 };
    entry.completed += 1;
    acknowledged.threads.set(named, entry);
  }

  try {
    await Promise.all(
      SOAK_KEYS.flatMap((key) => Array.from({ length: options.clientsPerKey }, () => client(key))),
    );
    await server.service.deps.runs.settled();
    await verify(server, acknowledged);
    result.threads = acknowledged.threads.size;
  } finally {
    await server.close();
  }
  await verifyNothingLeft(instance, [...acknowledged.threads.keys()]);
  return result;
}

async function verify(server: TestServer, acknowledged: Acknowledged): Promise<void> {
  for (const [id, file] of acknowledged.files) {
    const response = await server.fetch(`/v1/files/${id}/content`, {
      headers: { authorization: `Bearer ${file.key}` },
    });
    assert.equal(response.status, 200, `acknowledged file ${id} is readable`);
    const sha = createHash('sha256')
      .update(Buffer.from(await response.arrayBuffer()))
      .digest('hex');
    assert.equal(sha, file.sha256, `file ${id} has the bytes that were uploaded`);
  }
  const staging = (await readdir(join(server.dataDir, 'files'))).filter((n) => n.startsWith('.upload-'));
  assert.deepEqual(staging, [], 'no upload is left half-written');
  for (const key of SOAK_KEYS) {
    const auth = { authorization: `Bearer ${key}` };
    const list = (await (await server.fetch('/v1/threads?limit=100', { headers: auth })).json()) as {
      data: Array<{ id: string }>;
    };
    const stored = new Set<string>();
    for (const { id } of list.data) {
      const detail = (await (await server.fetch(`/v1/threads/${id}`, { headers: auth })).json()) as {
        runs: Array<{ status: string; answer: string | null }>;
      };
      assert.ok(
        detail.runs.every((r) => r.status !== 'running'),
        `no run of ${id} is left running: ${detail.runs.map((r) => r.status)}`,
      );
      const completed = acknowledged.threads.get(id)?.completed ?? 0;
      const answered = detail.runs.filter((r) => r.status === 'completed' && r.answer?.includes('soak done'));
      assert.ok(answered.length >= completed, `every completed chat of ${id} has its answer stored`);
      const messages = (await (
        await server.fetch(`/v1/threads/${id}/messages`, { headers: auth })
      ).json()) as {
        data: Array<{ role: string; content: Array<{ text: { value: string } }> }>;
      };
      for (const m of messages.data) if (m.role === 'user') stored.add(m.content[0]?.text.value ?? '');
    }
    const threads = new Set(list.data.map((t) => t.id));
    for (const [id, thread] of acknowledged.threads) {
      if (thread.key === key) assert.ok(threads.has(id), `acknowledged thread ${id} exists`);
    }
    const lost = [...acknowledged.questions.get(key)!].filter((q) => !stored.has(q));
    assert.deepEqual(lost, [], `every question of ${key} the server accepted is stored`);
  }
}

async function verifyNothingLeft(instance: string | undefined, threadIds: string[]): Promise<void> {
  assert.ok(instance, 'the sandbox manager names its containers');
  const left = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.instance}=${instance}`] },
  });
  assert.deepEqual(
    left.map((c) => c.Names[0]),
    [],
    'no container of the server is left',
  );
  const sockets = await readdir(join(tmpdir(), 'analyst-run')).catch(() => [] as string[]);
  const ours = sockets.filter((name) => threadIds.some((id) => name.includes(id)));
  assert.deepEqual(ours, [], 'no socket directory of its sessions is left');
}
