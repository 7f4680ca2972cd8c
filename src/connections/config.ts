import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';
import type { ConnectionKind } from './connection.ts';

/**
 * One connection of `ANALYST_CONNECTIONS_FILE` (docs/connections.md). Configured by the
 * operator only, never through the API, so no user can point the server at an address.
 */
const EntrySchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, _ . - (at most 64)'),
    kind: z.enum(['postgres', 'mysql', 'sqlite']),
    /** postgres://…, mysql://…, or a SQLite file's path. Prefer `url_env` for anything with a password. */
    url: z.string().min(1).optional(),
    /** The environment variable holding the URL. */
    url_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    title: z.string().max(200).optional(),
    /** Key ids (`key-` + the first 16 hex digits of the key's SHA-256; `local` in open mode), or "all". */
    keys: z.union([z.literal('all'), z.array(z.string().min(1).max(100)).max(10_000)]),
    /** Rows a statement returns at most. Default 10,000. */
    max_rows: z.number().int().min(1).max(1_000_000).default(10_000),
    /** Seconds a statement may run. Default 30. */
    timeout_s: z.number().positive().max(3600).default(30),
    /** The schemas (PostgreSQL) or databases (MySQL) shown and described; default all non-system ones. */
    schemas: z.array(z.string().min(1).max(128)).max(100).default([]),
  })
  .strict();

const FileSchema = z.object({ connections: z.array(z.unknown()).max(1000) }).strict();

export interface ConnectionConfig {
  id: string;
  kind: ConnectionKind;
  title: string;
  keys: 'all' | readonly string[];
  maxRows: number;
  timeoutMs: number;
  schemas: readonly string[];
  /** The secret: never logged, stored, sent or shown. */
  url: string;
}

/** The connections of ANALYST_CONNECTIONS_FILE; none when it is unset. Errors never quote a URL. */
export function loadConnectionsConfig(
  env: Record<string, string | undefined>,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): ConnectionConfig[] {
  const file = env.ANALYST_CONNECTIONS_FILE?.trim();
  if (!file) return [];
  let text: string;
  try {
    text = read(file);
  } catch (error) {
    throw new ConfigurationError(
      `ANALYST_CONNECTIONS_FILE=${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigurationError(
      `ANALYST_CONNECTIONS_FILE=${file} is not JSON: write {"connections": [ … ]}`,
    );
  }
  const top = FileSchema.safeParse(json);
  if (!top.success) {
    throw new ConfigurationError(`ANALYST_CONNECTIONS_FILE=${file} must be {"connections": [ … ]}`);
  }
  const seen = new Set<string>();
  return top.data.connections.map((raw, index) => {
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      // Paths and messages only: a value (a URL with its password) is never quoted.
      const issue = parsed.error.issues[0]!;
      throw new ConfigurationError(
        `ANALYST_CONNECTIONS_FILE: connections[${index}].${issue.path.join('.') || '(entry)'}: ${issue.code === 'unrecognized_keys' ? `unknown field(s) ${(issue as { keys: string[] }).keys.join(', ')}` : issue.message}`,
      );
    }
    const entry = parsed.data;
    if (seen.has(entry.id)) {
      throw new ConfigurationError(`ANALYST_CONNECTIONS_FILE: the id "${entry.id}" is used twice`);
    }
    seen.add(entry.id);
    if ((entry.url === undefined) === (entry.url_env === undefined)) {
      throw new ConfigurationError(
        `ANALYST_CONNECTIONS_FILE: connection "${entry.id}" needs exactly one of "url" and "url_env"`,
      );
    }
    const url = entry.url ?? env[entry.url_env!]?.trim();
    if (!url) {
      throw new ConfigurationError(
        `ANALYST_CONNECTIONS_FILE: connection "${entry.id}" reads its URL from ${entry.url_env}, which is not set`,
      );
    }
    checkUrl(entry.id, entry.kind, url);
    return {
      id: entry.id,
      kind: entry.kind,
      title: entry.title ?? entry.id,
      keys: entry.keys,
      maxRows: entry.max_rows,
      timeoutMs: Math.round(entry.timeout_s * 1000),
      schemas: entry.schemas,
      url: entry.kind === 'sqlite' ? url.replace(/^sqlite:(\/\/)?/, '') : url,
    };
  });
}

function checkUrl(id: string, kind: ConnectionKind, url: string): void {
  const ok =
    kind === 'postgres'
      ? /^postgres(ql)?:\/\/./.test(url)
      : kind === 'mysql'
        ? /^mysql:\/\/./.test(url)
        : /^(sqlite:(\/\/)?)?\/./.test(url);
  if (!ok) {
    const shape =
      kind === 'postgres'
        ? 'postgres://user:password@host:5432/db'
        : kind === 'mysql'
          ? 'mysql://user:password@host:3306/db'
          : 'an absolute path to the file, e.g. /srv/data/shop.sqlite';
    throw new ConfigurationError(
      `ANALYST_CONNECTIONS_FILE: connection "${id}" (${kind}) needs a URL like ${shape}`,
    );
  }
}
