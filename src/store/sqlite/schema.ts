/** The SQLite schema, applied in order; `PRAGMA user_version` records how far a database got. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE files (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     filename TEXT NOT NULL,
     purpose TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX files_owner ON files (owner, created_at);
   CREATE TABLE threads (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     workspace_dir TEXT NOT NULL,
     title TEXT,
     metadata TEXT NOT NULL DEFAULT '{}',
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX threads_owner ON threads (owner, created_at);
   CREATE TABLE messages (
     id TEXT PRIMARY KEY,
     thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
     role TEXT NOT NULL,
     content TEXT NOT NULL,
     file_ids TEXT NOT NULL DEFAULT '[]',
     run_id TEXT,
     created_at INTEGER NOT NULL,
     seq INTEGER NOT NULL
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
     created_at INTEGER NOT NULL,
     finished_at INTEGER
   );
   CREATE INDEX runs_thread ON runs (thread_id, created_at);
   CREATE INDEX runs_status ON runs (status);
   CREATE TABLE events (
     run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     type TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   ) WITHOUT ROWID;`,
  // Workspaces became a WorkspaceStore id instead of a host path (old rows keep their path).
  `ALTER TABLE threads RENAME COLUMN workspace_dir TO workspace;
   CREATE INDEX threads_updated ON threads (owner, updated_at);`,
  // Several replicas on one database: runs carry a lease, and the store itself enforces one
  // running run per thread. Per-key limits read the workspace bytes last measured.
  `ALTER TABLE runs ADD COLUMN replica TEXT;
   ALTER TABLE runs ADD COLUMN lease_expires_at INTEGER;
   ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE threads ADD COLUMN workspace_bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE runs SET status = 'interrupted', reason = 'the server stopped while this run was in progress'
     WHERE status = 'running'
       AND rowid NOT IN (SELECT MAX(rowid) FROM runs WHERE status = 'running' GROUP BY thread_id);
   CREATE UNIQUE INDEX runs_one_running ON runs (thread_id) WHERE status = 'running';
   CREATE INDEX runs_replica ON runs (replica) WHERE status = 'running';`,
  // What a run cost besides its tokens (model and cell time, peak memory), as JSON.
  'ALTER TABLE runs ADD COLUMN cost TEXT;',
  // A question that revises an earlier one (edit and re-ask, regenerate): the one it revises.
  'ALTER TABLE messages ADD COLUMN revises TEXT;',
  // Event pages seek runs in their order, ties by id, without a sort.
  `DROP INDEX runs_thread;
   CREATE INDEX runs_thread ON runs (thread_id, created_at, id);`,
];
