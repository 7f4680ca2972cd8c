/**
 * The PostgreSQL schema, applied in order at start (`migrate.ts` records each version in
 * `analyst_schema`). Times are milliseconds since the epoch, as in SQLite; leases are
 * compared with the database's clock (`analyst_now_ms()`), which every replica shares.
 * JSON is kept as text: it is only ever read whole, and text keeps it byte for byte.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE FUNCTION analyst_now_ms() RETURNS BIGINT
     LANGUAGE SQL VOLATILE AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
   CREATE TABLE files (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     filename TEXT NOT NULL,
     purpose TEXT NOT NULL,
     bytes BIGINT NOT NULL,
     sha256 TEXT NOT NULL,
     created_at BIGINT NOT NULL
   );
   CREATE INDEX files_owner ON files (owner, created_at);
   CREATE TABLE threads (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     workspace TEXT NOT NULL,
     title TEXT,
     metadata TEXT NOT NULL DEFAULT '{}',
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     workspace_bytes BIGINT NOT NULL DEFAULT 0
   );
   CREATE INDEX threads_owner ON threads (owner, created_at);
   CREATE INDEX threads_updated ON threads (owner, updated_at);
   CREATE TABLE messages (
     id TEXT PRIMARY KEY,
     thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
     role TEXT NOT NULL,
     content TEXT NOT NULL,
     file_ids TEXT NOT NULL DEFAULT '[]',
     run_id TEXT,
     created_at BIGINT NOT NULL,
     seq BIGSERIAL NOT NULL
   );
   CREATE INDEX messages_thread ON messages (thread_id, seq);
   CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
     model TEXT NOT NULL,
     protocol TEXT NOT NULL,
     status TEXT NOT NULL,
     reason TEXT,
     usage TEXT NOT NULL DEFAULT '{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}',
     answer TEXT,
     created_at BIGINT NOT NULL,
     finished_at BIGINT,
     replica TEXT,
     lease_expires_at BIGINT,
     cancel_requested BOOLEAN NOT NULL DEFAULT false
   );
   CREATE INDEX runs_thread ON runs (thread_id, created_at);
   CREATE UNIQUE INDEX runs_one_running ON runs (thread_id) WHERE status = 'running';
   CREATE INDEX runs_replica ON runs (replica) WHERE status = 'running';
   CREATE TABLE events (
     run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     type TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   );`,
  // What a run cost besides its tokens (model and cell time, peak memory), as JSON.
  'ALTER TABLE runs ADD COLUMN cost TEXT;',
  // A question that revises an earlier one (edit and re-ask, regenerate): the one it revises.
  'ALTER TABLE messages ADD COLUMN revises TEXT;',
  // Event pages read runs in their order, ties by id, from the index.
  `DROP INDEX runs_thread;
   CREATE INDEX runs_thread ON runs (thread_id, created_at, id);`,
];
