import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseDisallowedTools } from '../agent/tools/definitions.ts';
import { type ConnectionConfig, loadConnectionsConfig } from '../connections/config.ts';
import { ConfigurationError } from '../errors/index.ts';
import { DEFAULT_QUOTA_BYTES } from '../workspace/index.ts';
import { type KeyLimits, loadKeyLimits } from './limits/key-limits.ts';

/** One file of the size analysts have (issue 28 §6); the workspace quota leaves room for it. */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

/** Everything `analyst serve` needs, from flags and environment variables (documented in the README). */
export interface ServerConfig {
  /** Default 127.0.0.1. */
  host: string;
  /** Default 8200 (DeepAnalyze's port). */
  port: number;
  /** SQLite database, uploaded files and workspaces live here. Default ./data. */
  dataDir: string;
  /** sha256(key) → owner id; empty means open mode (loopback only). */
  keys: Map<string, string>;
  /** Origins allowed by CORS; empty means no CORS headers. */
  corsOrigins: string[];
  /** Largest JSON body. Default 16 MiB. */
  maxBodyBytes: number;
  /** Largest uploaded file, on every upload route. Default 4 GiB (ANALYST_MAX_UPLOAD_BYTES). */
  maxUploadBytes: number;
  /** Warm sandboxes kept ready. Default 2 session, 1 ephemeral. */
  pool: { session: number; ephemeral: number };
  /**
   * Session containers: given back after this long idle (stateless / stateful threads), and
   * at most this many alive at once (undefined: as many as half the host's memory holds).
   */
  sessions: { idleMs: number; statefulIdleMs: number; max: number | undefined };
  disallowedTools: Set<string>;
  /** Base URL of file links (ANALYST_PUBLIC_URL); without it links are relative (`/v1/…`), never from a client's Host. */
  publicUrl: string | undefined;
  logLevel: string;
  /** `off` serves without running any code (no Docker needed). Default `on`. */
  sandbox: 'on' | 'off';
  /** Size and file quota of each new workspace. Default 8 GiB and 200,000 files. */
  workspaceQuota: { bytes: number; files: number };
  /** Workspaces made ahead of demand for new threads (ANALYST_WORKSPACE_SPARES). Default 2. */
  workspaceSpares: number;
  /**
   * A workspace not used for this long is unmounted (its loop device freed) and mounted again
   * on its next use (ANALYST_WORKSPACE_IDLE_UNMOUNT_MS); 0 never. Default 60,000 ms.
   */
  workspaceIdleUnmountMs: number;
  /** Image bytes one report may embed (by apparent size); beyond it images are linked. Default 20 MiB. */
  reportImageBytes: number;
  /**
   * The socket of the root workspace helper (ANALYST_WORKSPACE_HELPER), for a server that is
   * not root (the Compose set-up): it makes and mounts the workspace filesystems. Default none.
   */
  workspaceHelper: string | undefined;
  /** Why execution is off, for the message every cell gets (ANALYST_SANDBOX_OFF_REASON). */
  sandboxOffReason: string | undefined;
  /**
   * PostgreSQL instead of the embedded SQLite (ANALYST_DATABASE_URL, `postgres://…`): several
   * replicas on it and one shared data directory act as one service (docs/scale-out.md).
   */
  databaseUrl: string | undefined;
  /** With PostgreSQL: a dead replica's runs are marked interrupted within this. Default 15 s. */
  runLeaseMs: number;
  /** Per-key limits (ANALYST_LIMIT_*); Infinity where there is none. */
  limits: KeyLimits;
  /** Read-only database connections (ANALYST_CONNECTIONS_FILE); their URLs are secrets. */
  connections: ConnectionConfig[];
}

export interface ServeFlags {
  host?: string;
  port?: number;
  dataDir?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function loadServerConfig(flags: ServeFlags, env: Record<string, string | undefined>): ServerConfig {
  const host = flags.host ?? env.ANALYST_HOST ?? '127.0.0.1';
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new ConfigurationError(
      `--host ${host} is not an IP address (use 127.0.0.1, 0.0.0.0 or an interface address)`,
    );
  }
  const port = flags.port ?? integer(env.ANALYST_PORT, 'ANALYST_PORT', 8200, 0, 65535);
  const keys = loadKeys(env);
  if (keys.size === 0 && !LOOPBACK.has(host)) {
    throw new ConfigurationError(
      `refusing to serve on ${host} without API keys: anyone who can reach it could run code. ` +
        'Set ANALYST_API_KEYS (comma-separated) or ANALYST_API_KEYS_FILE, or bind to 127.0.0.1 for local open mode',
    );
  }
  return {
    host,
    port,
    dataDir: resolve(flags.dataDir ?? env.ANALYST_DATA_DIR ?? 'data'),
    keys,
    corsOrigins: (env.ANALYST_CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    maxBodyBytes: integer(
      env.ANALYST_MAX_BODY_BYTES,
      'ANALYST_MAX_BODY_BYTES',
      16 * 1024 * 1024,
      1024,
      2 ** 31,
    ),
    maxUploadBytes: integer(
      env.ANALYST_MAX_UPLOAD_BYTES,
      'ANALYST_MAX_UPLOAD_BYTES',
      DEFAULT_MAX_UPLOAD_BYTES,
      1,
      2 ** 40,
    ),
    pool: {
      session: integer(env.ANALYST_POOL_SESSION, 'ANALYST_POOL_SESSION', 2, 0, 32),
      ephemeral: integer(env.ANALYST_POOL_EPHEMERAL, 'ANALYST_POOL_EPHEMERAL', 1, 0, 32),
    },
    sessions: {
      idleMs:
        1000 * integer(env.ANALYST_SESSION_IDLE_SECONDS, 'ANALYST_SESSION_IDLE_SECONDS', 120, 1, 86_400),
      statefulIdleMs:
        1000 *
        integer(env.ANALYST_STATEFUL_IDLE_SECONDS, 'ANALYST_STATEFUL_IDLE_SECONDS', 1800, 1, 7 * 86_400),
      max:
        env.ANALYST_MAX_SESSIONS === undefined || env.ANALYST_MAX_SESSIONS === ''
          ? undefined
          : integer(env.ANALYST_MAX_SESSIONS, 'ANALYST_MAX_SESSIONS', 1, 1, 10_000),
    },
    disallowedTools: parseDisallowedTools(env.DISALLOWED_TOOLS),
    publicUrl: publicUrlOf(env.ANALYST_PUBLIC_URL),
    logLevel: env.ANALYST_LOG_LEVEL ?? 'info',
    sandbox: switchOf(env.ANALYST_SANDBOX, 'ANALYST_SANDBOX'),
    workspaceSpares: integer(env.ANALYST_WORKSPACE_SPARES, 'ANALYST_WORKSPACE_SPARES', 2, 0, 64),
    workspaceIdleUnmountMs: integer(
      env.ANALYST_WORKSPACE_IDLE_UNMOUNT_MS,
      'ANALYST_WORKSPACE_IDLE_UNMOUNT_MS',
      60_000,
      0,
      7 * 24 * 3600_000,
    ),
    workspaceQuota: {
      bytes: integer(
        env.ANALYST_WORKSPACE_QUOTA_BYTES,
        'ANALYST_WORKSPACE_QUOTA_BYTES',
        DEFAULT_QUOTA_BYTES,
        16 * 1024 ** 2,
        2 ** 44,
      ),
      files: integer(
        env.ANALYST_WORKSPACE_QUOTA_FILES,
        'ANALYST_WORKSPACE_QUOTA_FILES',
        200_000,
        1_000,
        50_000_000,
      ),
    },
    reportImageBytes: integer(
      env.ANALYST_REPORT_IMAGE_BYTES,
      'ANALYST_REPORT_IMAGE_BYTES',
      20 * 1024 * 1024,
      0,
      512 * 1024 * 1024,
    ),
    workspaceHelper: env.ANALYST_WORKSPACE_HELPER?.trim() || undefined,
    sandboxOffReason: env.ANALYST_SANDBOX_OFF_REASON?.trim() || undefined,
    databaseUrl: databaseUrlOf(env.ANALYST_DATABASE_URL),
    runLeaseMs: integer(env.ANALYST_RUN_LEASE_MS, 'ANALYST_RUN_LEASE_MS', 15_000, 1_000, 600_000),
    limits: loadKeyLimits(env),
    connections: loadConnectionsConfig(env),
  };
}

function databaseUrlOf(value: string | undefined): string | undefined {
  const url = value?.trim();
  if (!url) return undefined;
  if (!/^postgres(ql)?:\/\/\S+$/.test(url)) {
    throw new ConfigurationError(
      'ANALYST_DATABASE_URL must be a PostgreSQL URL like postgres://user:password@host:5432/analyst (leave it unset for the embedded SQLite)',
    );
  }
  return url;
}

/** Keys from ANALYST_API_KEYS (comma-separated) and ANALYST_API_KEYS_FILE (one per line, # comments). */
function loadKeys(env: Record<string, string | undefined>): Map<string, string> {
  const keys: string[] = (env.ANALYST_API_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (env.ANALYST_API_KEYS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.ANALYST_API_KEYS_FILE, 'utf8');
    } catch (error) {
      throw new ConfigurationError(
        `ANALYST_API_KEYS_FILE=${env.ANALYST_API_KEYS_FILE} cannot be read: ${(error as NodeJS.ErrnoException).code}`,
      );
    }
    for (const line of text.split('\n')) {
      const key = line.replace(/#.*/, '').trim();
      if (key) keys.push(key);
    }
  }
  const map = new Map<string, string>();
  for (const key of keys) {
    if (key.length < 16) throw new ConfigurationError('API keys must be at least 16 characters long');
    const digest = sha256(key);
    map.set(digest, `key-${digest.slice(0, 16)}`);
  }
  return map;
}

function publicUrlOf(value: string | undefined): string | undefined {
  const url = value?.trim().replace(/\/+$/, '');
  if (!url) return undefined;
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(url)) {
    throw new ConfigurationError(
      `ANALYST_PUBLIC_URL=${value} must be an http(s) URL, like https://analyst.example.com`,
    );
  }
  return url;
}

function switchOf(value: string | undefined, name: string): 'on' | 'off' {
  const v = (value ?? 'on').trim().toLowerCase();
  if (v === 'on' || v === '1' || v === 'true' || v === '') return 'on';
  if (v === 'off' || v === '0' || v === 'false') return 'off';
  throw new ConfigurationError(`${name}=${value} must be on or off`);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function integer(
  value: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value.trim() === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigurationError(`${name}=${value} must be a whole number from ${min} to ${max}`);
  }
  return parsed;
}
