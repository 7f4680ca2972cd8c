#!/usr/bin/env bash
# The main job: serve Analyst on http://127.0.0.1:8200 with embedded defaults — SQLite and
# files under ./data, the local Docker sandbox, and the offline analyst when no model is
# configured (set ANALYST_MODEL_URL and ANALYST_MODEL for DeepAnalyze-8B on vLLM or any
# OpenAI-compatible model). Extra arguments go to `analyst serve`. Once the server answers,
# it prints one line to try.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

host="${ANALYST_HOST:-127.0.0.1}"
port="${ANALYST_PORT:-8200}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
    --host) host="${args[$((i + 1))]:-$host}" ;;
    --host=*) host="${args[$i]#--host=}" ;;
    --port) port="${args[$((i + 1))]:-$port}" ;;
    --port=*) port="${args[$i]#--port=}" ;;
  esac
done
[ "$host" = "0.0.0.0" ] && host="127.0.0.1"

# Once the server is ready (its warm sandboxes started, so the first question waits for none),
# one line to try (a watcher beside it; the server itself runs in the foreground so Ctrl-C and
# signals reach it directly). A server that answers but is not ready says so after two minutes.
(
  answers() {
    node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1" 2>/dev/null
  }
  for _ in $(seq 1 240); do
    if answers "http://$host:$port/health/ready"; then
      echo "Analyst is ready at http://$host:$port — try it on an example (more in examples/README.md):"
      echo "  npx analyst run examples/simpson/Simpson.csv --question \"Which teaching method (treatment) performs better?\""
      echo "  npx analyst chat examples/iris/iris.csv --url http://$host:$port"
      exit 0
    fi
    sleep 0.5
  done
  if answers "http://$host:$port/health"; then
    echo "Analyst answers at http://$host:$port but is not ready: curl http://$host:$port/health/ready says why"
  fi
) &
source scripts/allocator.sh
exec node bin/analyst.js serve "$@"
