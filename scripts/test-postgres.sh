#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a fresh cluster (initdb) in a temp directory,
# listening on a free port on 127.0.0.1 only (and a socket inside that directory), trusting
# local connections, never touching the machine's own clusters.
#
#   bash scripts/test-postgres.sh start   → prints "<dir> <url>" (e.g. postgres://postgres@127.0.0.1:PORT/postgres)
#   bash scripts/test-postgres.sh stop DIR → stops it and removes the directory
#
# As root the server runs as the `postgres` user (PostgreSQL refuses to run as root).
set -euo pipefail

bindir() {
  local found
  found=$(command -v pg_ctl 2>/dev/null || true)
  if [ -n "$found" ]; then dirname "$found"; return; fi
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$found" ] && [ -x "$found/pg_ctl" ] && { echo "$found"; return; }
  return 1
}

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

case "${1:-}" in
  start)
    bin=$(bindir) || { echo "test-postgres: PostgreSQL is not installed (Debian: apt-get install postgresql)" >&2; exit 1; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/analyst-pg-XXXXXX")
    chmod 0755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    as_server_user "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 || {
      echo "test-postgres: initdb failed:" >&2; cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
    for attempt in 1 2 3; do
      port=$(free_port)
      # fsync off: a throwaway cluster need not survive a power cut, and tests run faster.
      if as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
          -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
          start >/dev/null 2>&1; then
        echo "$dir postgres://postgres@127.0.0.1:$port/postgres"
        exit 0
      fi
    done
    echo "test-postgres: the server did not start:" >&2
    cat "$dir/server.log" >&2 || true
    rm -rf "$dir"
    exit 1
    ;;
  stop)
    dir="${2:?usage: test-postgres.sh stop DIR}"
    case "$dir" in */analyst-pg-*) ;; *) echo "test-postgres: $dir is not a test cluster" >&2; exit 1 ;; esac
    if [ -d "$dir/data" ]; then
      bin=$(bindir) && as_server_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: test-postgres.sh start | stop DIR" >&2
    exit 2
    ;;
esac
