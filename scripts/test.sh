#!/usr/bin/env bash
# The whole test suite against real parts (Docker engine, sandbox image, a PostgreSQL server).
# Installs what it needs. A throwaway PostgreSQL (scripts/test-postgres.sh) is started first and
# its URL exported as ANALYST_TEST_DATABASE_URL, so the service's tests that use a store run
# once on SQLite and once on PostgreSQL in this one `node --test` run (one summary counts
# both); a throwaway MariaDB likewise (ANALYST_TEST_MYSQL_URL, for the connections tests). Both are
# stopped and removed when the tests end, pass or fail, or are interrupted.
# ANALYST_TEST_POSTGRES=all runs every such suite on PostgreSQL too (the default: the store
# contract, run service, runs API, replicas, limits, crash recovery and openai client suites;
# the others run on SQLite only). ANALYST_TEST_POSTGRES=off: none.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
mapfile -t files < <(find test -name '*.test.ts' | sort)

pg_dir=""
maria_dir=""
stop_postgres() {
  if [ -n "$pg_dir" ]; then
    bash scripts/test-postgres.sh stop "$pg_dir" || true
    pg_dir=""
  fi
  if [ -n "$maria_dir" ]; then
    bash scripts/test-mariadb.sh stop "$maria_dir" || true
    maria_dir=""
  fi
}
trap stop_postgres EXIT
trap 'stop_postgres; exit 130' INT
trap 'stop_postgres; exit 143' TERM

if [ "${ANALYST_TEST_POSTGRES:-}" != "off" ]; then
  if started=$(bash scripts/test-postgres.sh start); then
    pg_dir="${started%% *}"
    export ANALYST_TEST_DATABASE_URL="${started#* }"
    echo "test: PostgreSQL for the tests at $ANALYST_TEST_DATABASE_URL" >&2
  else
    echo "test: no PostgreSQL server could be started; its runs of the tests are reported as skipped" >&2
  fi
fi

# A throwaway MariaDB (scripts/test-mariadb.sh) for the tests of database connections.
if [ "${ANALYST_TEST_MARIADB:-}" != "off" ]; then
  if started=$(bash scripts/test-mariadb.sh start); then
    maria_dir="${started%% *}"
    export ANALYST_TEST_MYSQL_URL="${started#* }"
    echo "test: MariaDB for the tests at ${ANALYST_TEST_MYSQL_URL%%:*}://…@${ANALYST_TEST_MYSQL_URL##*@}" >&2
  else
    echo "test: no MariaDB server could be started; the MySQL tests of connections are reported as skipped" >&2
  fi
fi

# Not exec: the trap must stop the server after the tests.
node --import tsx --test --test-concurrency=1 "$@" "${files[@]}"
