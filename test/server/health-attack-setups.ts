import assert from 'node:assert/strict';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ownerOf } from '../../src/server/auth.ts';
import { rawMcpSession } from '../mcp/helpers.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { offlineThread, postJson, rawRequest, threadExec, upload } from './hostile-helpers.ts';
import { duplicateSharedStringsXlsx, loopingSqlite, parquetBomb } from './hostile-preview-files.ts';

/**
 * The set-ups of issue 29's attacks on one server, for health-every-attack.test.ts: each
 * attack's thread holds the hostile files of the test that reproduces its finding.
 */

export const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** A key per attack: the stored-bytes quota below is per key, and each attack has its own. */
export const KEYS = {
  previews: 'health-key-previews-0001',
  mcp: 'health-key-mcp-000000002',
  events: 'health-key-events-000003',
  reportsA: 'health-key-reports-a-004',
  reportsB: 'health-key-reports-b-005',
  uploads: 'health-key-uploads-00006',
  exports: 'health-key-exports-00007',
  trees: 'health-key-trees-0000008',
};
export type Attacker = keyof typeof KEYS;
/** Trees 1,100 levels deep made for the DELETE attack. */
export const TREES = 4;

/** The thread each attack runs against. */
export type AttackThreads = Record<
  'previews' | 'mcp' | 'events' | 'reportsA' | 'reportsB' | 'exports' | 'trees',
  string
>;
type McpSession = Awaited<ReturnType<typeof rawMcpSession>>;

export interface AttackServer {
  server: TestServer;
  threads: AttackThreads;
  /** An MCP session on the `mcp` thread, which holds `ctl16.txt` (16 MiB of \x01). */
  mcpSession: McpSession;
  /** The URL of each page of the `events` thread's events, in order. */
  eventPages: string[];
}

/** One server with a key per attack, under a 100 MiB stored-bytes quota, and every set-up. */
export async function startAttackServer(): Promise<AttackServer> {
  const server = await startTestServer({
    env: {
      ANALYST_API_KEYS: Object.values(KEYS).join(','),
      ANALYST_LIMIT_STORED_BYTES: String(100 * MiB),
      ANALYST_LIMIT_REQUESTS_PER_MINUTE: '0',
    },
  });
  const threads = {} as AttackThreads;
  const [, mcpSession, eventPages] = await Promise.all([
    setUpPreviews(server, threads),
    setUpMcp(server, threads),
    setUpEvents(server, threads),
    setUpExports(server, threads),
    setUpTrees(server, threads),
    (async () => {
      threads.reportsA = await offlineThread(server, KEYS.reportsA);
      threads.reportsB = await offlineThread(server, KEYS.reportsB);
    })(),
  ]);
  return { server, threads, mcpSession, eventPages };
}

async function newThread(server: TestServer, who: Attacker): Promise<string> {
  const created = await postJson(server, '/v1/threads', {}, KEYS[who]);
  assert.equal(created.status, 201, created.text);
  return created.json().id as string;
}

/** A file written straight into a thread's workspace, as a cell would (sparse when asked). */
async function place(
  server: TestServer,
  who: Attacker,
  thread: string,
  name: string,
  head: string | Uint8Array,
  apparentBytes?: number,
) {
  const { threads: service } = server.service.deps;
  const owner = ownerOf(`Bearer ${KEYS[who]}`, server.service.deps.config.keys);
  const workspace = await service.workspace(await service.get(owner, thread));
  await workspace.ready();
  // Kept mounted while written: an idle workspace's filesystem may be taken off its mount point.
  await workspace.keepMounted(async () => {
    const root = workspace.mount().path;
    const parts = name.split('/');
    if (parts.length > 1) await mkdir(join(root, ...parts.slice(0, -1)), { recursive: true });
    const handle = await open(join(root, name), 'w');
    try {
      await handle.write(typeof head === 'string' ? Buffer.from(head) : head);
      if (apparentBytes !== undefined) await handle.truncate(apparentBytes);
    } finally {
      await handle.close();
    }
  });
}

async function uploadTo(
  server: TestServer,
  who: Attacker,
  thread: string,
  filename: string,
  content: Uint8Array,
): Promise<void> {
  const response = await upload(
    server,
    `/v1/threads/${thread}/files`,
    { filename, content: Buffer.from(content) },
    KEYS[who],
  );
  assert.equal(response.status, 200, response.text);
}

/** The hostile preview files, and a first preview (it starts the preview launcher, once per server). */
async function setUpPreviews(server: TestServer, threads: AttackThreads): Promise<void> {
  threads.previews = await newThread(server, 'previews');
  await uploadTo(server, 'previews', threads.previews, 'loop.sqlite', await loopingSqlite());
  await uploadTo(server, 'previews', threads.previews, 'bomb.parquet', parquetBomb());
  await uploadTo(server, 'previews', threads.previews, 'dup.xlsx', duplicateSharedStringsXlsx());
  // Text first (a head of NUL bytes is said to be binary at once), then a sparse tail to scan.
  for (let i = 0; i < 10; i++)
    await place(server, 'previews', threads.previews, `sparse-${i}.csv`, `a,b\n${'1,2\n'.repeat(4096)}`, GiB);
  await place(server, 'previews', threads.previews, 'warm.csv', 'a\n1\n');
  const warm = await rawRequest(server, {
    path: `/v1/threads/${threads.previews}/preview/warm.csv`,
    key: KEYS.previews,
  });
  assert.equal(warm.status, 200, warm.text);
}

/** A 16 MiB file of \x01 bytes and an MCP session on its thread. */
async function setUpMcp(server: TestServer, threads: AttackThreads): Promise<McpSession> {
  threads.mcp = await newThread(server, 'mcp');
  await uploadTo(server, 'mcp', threads.mcp, 'ctl16.txt', Buffer.alloc(16 * MiB, 1));
  return rawMcpSession(server.url, KEYS.mcp, threads.mcp);
}

/** 8 MB of big events stored as runs store them (events-pages.test.ts), and the URL of each page. */
async function setUpEvents(server: TestServer, threads: AttackThreads): Promise<string[]> {
  threads.events = await newThread(server, 'events');
  const { store } = server.service.deps;
  for (let r = 0; r < 4; r += 1) {
    const runId = `run-${String(r + 5).repeat(24)}`;
    await store.createRun({ id: runId, thread_id: threads.events, model: 'offline', protocol: 'offline' });
    const events = Array.from({ length: 400 }, (_, seq) => ({
      seq,
      event: { type: 'text-delta' as const, round: 1, text: `${r}.${seq} ${'\u0001"z'.repeat(1700)}` },
    }));
    for (let at = 0; at < events.length; at += 100)
      await store.appendEvents(runId, events.slice(at, at + 100));
    await store.finishRun(runId, {
      status: 'completed',
      reason: null,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      answer: null,
    });
  }
  const eventPages: string[] = [];
  let path = `/v1/threads/${threads.events}/events`;
  for (;;) {
    eventPages.push(path);
    const page = await rawRequest(server, { path, key: KEYS.events });
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const { has_more, last_id } = page.json() as { has_more: boolean; last_id: string };
    if (!has_more) break;
    path = `/v1/threads/${threads.events}/events?after=${encodeURIComponent(last_id)}`;
  }
  assert.ok(eventPages.length >= 3, `${eventPages.length} pages of events`);
  return eventPages;
}

/** 50 sparse 1 GiB files in a workspace (export-bounds.test.ts). */
async function setUpExports(server: TestServer, threads: AttackThreads): Promise<void> {
  threads.exports = await newThread(server, 'exports');
  for (let i = 0; i < 50; i++)
    await place(server, 'exports', threads.exports, `holes/h${String(i).padStart(2, '0')}.bin`, 'x', GiB);
  await place(server, 'exports', threads.exports, 'notes.txt', 'kept\n');
}

/** Trees 1,100 levels deep, made by a cell (workspace-trees.test.ts). */
async function setUpTrees(server: TestServer, threads: AttackThreads): Promise<void> {
  threads.trees = await offlineThread(server, KEYS.trees);
  const made = await threadExec(
    server,
    threads.trees,
    [
      'import os',
      `for t in range(${TREES}):`,
      '    os.chdir("/workspace")',
      '    os.mkdir(f"deep{t}")',
      '    os.chdir(f"deep{t}")',
      '    for i in range(1100):',
      '        os.mkdir("level")',
      '        open(b"\\xff\\xfe-" + str(i).encode() + b".bin", "wb").write(b"x" * 10)',
      '        os.chdir("level")',
      'print("made")',
    ].join('\n'),
    { key: KEYS.trees },
  );
  assert.match(made.output, /made/, JSON.stringify(made).slice(0, 500));
}
