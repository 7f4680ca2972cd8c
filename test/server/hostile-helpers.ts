import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from './helpers.ts';

/** Two API keys for a server started with ANALYST_API_KEYS (each at least 16 characters). */
export const KEY_A = 'key-aaaaaaaaaaaaaaaa1';
export const KEY_B = 'key-bbbbbbbbbbbbbbbb2';
export const TWO_KEYS = { ANALYST_API_KEYS: `${KEY_A},${KEY_B}` };

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  /** The body as JSON (throws with the body when it is not JSON). */
  json(): Record<string, unknown>;
}

/**
 * One HTTP request with the path sent byte for byte: fetch() would resolve `..` and `%2e%2e`
 * segments before they reach the server, which is exactly what a hostile client does not do.
 */
export function rawRequest(
  server: TestServer,
  options: {
    method?: string;
    path: string;
    key?: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    /** Send the body in 16 KiB chunks with chunked transfer encoding (no content-length). */
    chunked?: boolean;
  },
): Promise<RawResponse> {
  const url = new URL(server.url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined && !options.chunked)
    headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        // A connection of its own: a kept-alive one the server closes as it idles out (after a
        // test blocked the event loop longer than the keep-alive timeout) would reset the next request.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text,
            json: () => {
              try {
                return JSON.parse(text) as Record<string, unknown>;
              } catch {
                throw new Error(`not JSON (HTTP ${res.statusCode}): ${text.slice(0, 300)}`);
              }
            },
          });
        });
      },
    );
    req.on('error', reject);
    if (options.chunked && options.body !== undefined) {
      const body = Buffer.from(options.body);
      for (let at = 0; at < body.length; at += 16384) req.write(body.subarray(at, at + 16384));
      req.end();
    } else req.end(options.body);
  });
}

export interface WireErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** Asserts the status and OpenAI's error shape of a raw response; returns the error. */
export function expectRawError(response: RawResponse, status: number): WireErrorBody {
  assert.equal(
    response.status,
    status,
    `expected HTTP ${status}, got ${response.status}: ${response.text.slice(0, 500)}`,
  );
  const body = response.json() as { error?: WireErrorBody };
  const error = body.error;
  assert.ok(
    error &&
      typeof error.message === 'string' &&
      error.message.length > 0 &&
      typeof error.type === 'string' &&
      'param' in error &&
      'code' in error,
    `not OpenAI's error shape: ${response.text.slice(0, 500)}`,
  );
  return error;
}

/** A multipart part; `filename` may be raw bytes, to send names that are not UTF-8. */
export interface Part {
  name: string;
  filename?: string | Buffer;
  content: string | Buffer;
  contentType?: string;
}

/** A multipart/form-data body built by hand, so headers can hold any bytes a client can send. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----hostile${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head: Buffer[] = [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`),
    ];
    if (part.filename !== undefined) {
      head.push(Buffer.from('; filename="'), Buffer.from(part.filename), Buffer.from('"'));
    }
    head.push(Buffer.from(`\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`));
    chunks.push(...head, Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Uploads one file (raw multipart) to `path`, e.g. /v1/files or /v1/threads/{id}/files. */
export function upload(
  server: TestServer,
  path: string,
  file: { filename: string | Buffer; content: string | Buffer; fieldName?: string },
  key?: string,
): Promise<RawResponse> {
  const { body, contentType } = multipart([
    { name: file.fieldName ?? 'file', filename: file.filename, content: file.content },
  ]);
  return rawRequest(server, { method: 'POST', path, key, headers: { 'content-type': contentType }, body });
}

/** POSTs JSON text (any text, so malformed bodies can be sent). */
export function postJson(
  server: TestServer,
  path: string,
  body: unknown,
  key?: string,
): Promise<RawResponse> {
  return rawRequest(server, {
    method: 'POST',
    path,
    key,
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Rows in every table of the server's database, across all owners (SQLite or PostgreSQL). */
export async function dbCounts(
  server: TestServer,
): Promise<Record<'files' | 'threads' | 'messages' | 'runs' | 'events', number>> {
  const { count } = server.database;
  return {
    files: await count('files'),
    threads: await count('threads'),
    messages: await count('messages'),
    runs: await count('runs'),
    events: await count('events'),
  };
}

/**
 * Every entry under `root` (not following symlinks), as `path → kind:size` for files and
 * `path → kind` otherwise. The database's own files are left out: their bytes change on reads.
 * So are spare workspaces (marked `<id>.spare` from before their image is made until one is
 * handed to a thread): the server makes them whenever it gave one out, a second later, so
 * one may appear between any two snapshots whatever the request in between did.
 */
export async function treeOf(root: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  // Spare workspaces are made and mounted in the background at any moment: neither their
  // images, markers nor mount holders are the work of a request. One may be made while the
  // tree is walked, so spares are looked for again once it is.
  const spareIds = async () =>
    (await readdir(join(root, 'workspaces')).catch(() => []))
      .map((name) => /^(ws-[0-9a-f]+)\.spare$/.exec(name)?.[1])
      .filter((id) => id !== undefined);
  const spares = new Set(await spareIds());
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = prefix + entry.name;
      if (prefix === '' && entry.name.startsWith('analyst.db')) continue;
      // Slots are binds of workspaces into session containers: the same files seen twice.
      if (prefix === 'run/' && entry.name === 'slots') continue;
      const info = await lstat(join(dir, entry.name)).catch(() => undefined);
      if (!info) continue; // gone meanwhile (a spare's marker, a holder)
      if (info.isSymbolicLink()) found.set(path, 'symlink');
      else if (info.isDirectory()) {
        found.set(path, 'dir');
        await walk(join(dir, entry.name), `${path}/`);
      } else if (info.isFile()) found.set(path, `file:${info.size}`);
      else found.set(path, 'other');
    }
  };
  await walk(root, '');
  for (const id of await spareIds()) spares.add(id);
  for (const path of found.keys()) {
    const id = /^workspaces\/(?:\.holders\/)?(ws-[0-9a-f]+)(?:\.\w+|\/.*)?$/.exec(path)?.[1];
    if (id !== undefined && spares.has(id)) found.delete(path);
  }
  return found;
}

/** What changed between two trees: entries added, removed, or of another kind or size. */
export function treeDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, kind] of after) {
    if (!before.has(path)) changes.push(`+ ${path} (${kind})`);
    else if (before.get(path) !== kind) changes.push(`~ ${path} (${before.get(path)} → ${kind})`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`- ${path}`);
  return changes.sort();
}

/** A thread's workspace id, straight from the database (any owner; tests only). */
export async function workspaceIdOf(server: TestServer, threadId: string): Promise<string> {
  const workspace = await server.database.workspaceOf(threadId);
  assert.ok(workspace, `no thread ${threadId} in the database`);
  return workspace;
}

/** A thread's workspace directory on the host (its mount point; tests only). */
export async function workspaceOf(server: TestServer, threadId: string): Promise<string> {
  return join(server.dataDir, 'workspaces', await workspaceIdOf(server, threadId));
}

/** Runs a cell in a thread's sandbox through the API and returns the ExecResult. */
export async function threadExec(
  server: TestServer,
  threadId: string,
  code: string,
  options: { key?: string; stateful?: boolean } = {},
): Promise<{ status: string; output: string; [field: string]: unknown }> {
  const body = options.stateful === undefined ? { code } : { code, stateful: options.stateful };
  const response = await postJson(server, `/v1/threads/${threadId}/exec`, body, options.key);
  assert.equal(response.status, 200, response.text);
  return response.json() as { status: string; output: string };
}

/** A thread made by one offline chat (no model needed), owned by `key`. */
export async function offlineThread(server: TestServer, key?: string): Promise<string> {
  const response = await postJson(
    server,
    '/v1/chat/completions',
    { model: 'offline', messages: [{ role: 'user', content: 'Describe the data.' }] },
    key,
  );
  assert.equal(response.status, 200, response.text);
  const body = response.json() as { choices: Array<{ message: { thread_id: string } }> };
  await settled(server);
  return body.choices[0]!.message.thread_id;
}

/** Waits for the work runs leave behind after their answer (the reports written into the workspace). */
export function settled(server: TestServer): Promise<void> {
  return server.service.deps.runs.settled();
}

/**
 * A file on the host, outside every workspace and the data directory, holding a marker no
 * sandbox can know: if the marker shows up in a response, or the file's bytes, owner or mode
 * change, the server followed a link a cell made.
 */
export async function hostVictim(): Promise<{
  dir: string;
  file: string;
  marker: string;
  assertUntouched(): Promise<void>;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'analyst-victim-'));
  const file = join(dir, 'victim.txt');
  const marker = `host-only-${randomBytes(8).toString('hex')}`;
  await writeFile(file, `${marker}\n`, { mode: 0o600 });
  const original = await lstat(file);
  return {
    dir,
    file,
    marker,
    async assertUntouched() {
      const now = await lstat(file);
      assert.equal(await readFile(file, 'utf8'), `${marker}\n`, 'the host file was overwritten');
      assert.deepEqual(
        { uid: now.uid, gid: now.gid, mode: now.mode },
        { uid: original.uid, gid: original.gid, mode: original.mode },
        'the host file changed owner or mode',
      );
      assert.deepEqual(await readdir(dir), ['victim.txt'], 'a file appeared in the host directory');
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Reads an SSE chat stream until `until(content)` holds; returns the content and the raw text. */
export async function readStreamUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (content: string) => boolean,
): Promise<{ content: string; raw: string }> {
  let pending = '';
  let raw = '';
  let content = '';
  while (!until(content)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended first; content so far: ${content}`);
    const text = Buffer.from(value).toString();
    raw += text;
    pending += text;
    const events = pending.split('\n\n');
    pending = events.pop() ?? '';
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') continue;
      const parsed = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> };
      content += parsed.choices?.[0]?.delta?.content ?? '';
    }
  }
  return { content, raw };
}

export { eventually as waitFor } from '../helpers/sandbox.ts';

/** A request that must be refused: its status, what its message says, and its `param`. */
export interface ErrorCase {
  what: string;
  send: () => Promise<RawResponse>;
  status: number;
  message: RegExp;
  /** The `param` it must name; leave out when none applies. */
  param?: string | null;
}

/** Sends every case and asserts them all, reporting every mismatch at once. */
export async function expectErrors(cases: ErrorCase[]): Promise<void> {
  const problems: string[] = [];
  for (const c of cases) {
    const response = await c.send();
    let error: WireErrorBody;
    try {
      error = expectRawError(response, c.status);
    } catch (failure) {
      problems.push(`${c.what}: ${(failure as Error).message.split('\n')[0]}`);
      continue;
    }
    if (!c.message.test(error.message)) problems.push(`${c.what}: message ${JSON.stringify(error.message)}`);
    if (c.param !== undefined && error.param !== c.param)
      problems.push(`${c.what}: param ${JSON.stringify(error.param)}, expected ${JSON.stringify(c.param)}`);
  }
  assert.deepEqual(problems, []);
}

export interface DataSnapshot {
  tree: Map<string, string>;
  counts: Awaited<ReturnType<typeof dbCounts>>;
}

/** The data dir's entries and the database's row counts, to compare after refused requests. */
export async function dataSnapshot(server: TestServer): Promise<DataSnapshot> {
  return { tree: await treeOf(server.dataDir), counts: await dbCounts(server) };
}

export async function assertUnchanged(server: TestServer, before: DataSnapshot): Promise<void> {
  assert.deepEqual(treeDiff(before.tree, await treeOf(server.dataDir)), [], 'the data dir changed');
  assert.deepEqual(await dbCounts(server), before.counts, 'records were created or removed');
}
