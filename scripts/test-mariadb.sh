#!/usr/bin/env bash
# A throwaway MariaDB server for the tests of database connections: a fresh data directory
# (mariadb-install-db) in a temp directory, listening on a free port on 127.0.0.1 only (and a
# socket inside that directory), never touching the machine's own server.
#
#   bash scripts/test-mariadb.sh start    → prints "<dir> <url>" (mysql://analyst:PASSWORD@127.0.0.1:PORT/analyst_test)
#   bash scripts/test-mariadb.sh stop DIR → stops it and removes the directory
#
# The `analyst` user's password is random per instance; as root the server runs as the `mysql` user.
set -euo pipefail

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u mysql -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || {
      echo "test-mariadb: MariaDB is not installed (Debian: apt-get install mariadb-server)" >&2; exit 1; }
    server=$(command -v mariadbd 2>/dev/null || echo /usr/sbin/mariadbd)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/analyst-mariadb-XXXXXX")
    chmod 0755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown mysql: "$dir"; fi
    as_server_user mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 || {
      echo "test-mariadb: mariadb-install-db failed:" >&2; cat "$dir/install.log" >&2; rm -rf "$dir"; exit 1; }
    password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
    for attempt in 1 2 3; do
      port=$(free_port)
      as_server_user "$server" --no-defaults --datadir="$dir/data" --socket="$dir/mysqld.sock" \
        --pid-file="$dir/mysqld.pid" --bind-address=127.0.0.1 --port="$port" --skip-name-resolve \
        --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size=32M --log-error="$dir/server.log" \
        >/dev/null 2>&1 &
      for _ in $(seq 1 60); do
        if mariadb --no-defaults -S "$dir/mysqld.sock" -u root -e 'SELECT 1' >/dev/null 2>&1; then
          mariadb --no-defaults -S "$dir/mysqld.sock" -u root -e "
            CREATE USER 'analyst'@'127.0.0.1' IDENTIFIED BY '$password';
            GRANT ALL PRIVILEGES ON *.* TO 'analyst'@'127.0.0.1' WITH GRANT OPTION;
            CREATE DATABASE analyst_test;"
          echo "$dir mysql://analyst:$password@127.0.0.1:$port/analyst_test"
          exit 0
        fi
        sleep 0.5
      done
      [ -f "$dir/mysqld.pid" ] && kill "$(cat "$dir/mysqld.pid")" 2>/dev/null || true
    done
    echo "test-mariadb: the server did not start:" >&2
    cat "$dir/server.log" >&2 || true
    rm -rf "$dir"
    exit 1
    ;;
  stop)
    dir="${2:?usage: test-mariadb.sh stop DIR}"
    case "$dir" in */analyst-mariadb-*) ;; *) echo "test-mariadb: $dir is not a test server" >&2; exit 1 ;; esac
    if [ -f "$dir/mysqld.pid" ]; then
      pid=$(cat "$dir/mysqld.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: test-mariadb.sh start | stop DIR" >&2
    exit 2
    ;;
esac
