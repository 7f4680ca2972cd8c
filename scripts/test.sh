#!/usr/bin/env bash
# The whole test suite against real parts (Docker engine, sandbox image). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mapfile -t files < <(find test -name '*.test.ts' | sort)
exec node --import tsx --test --test-concurrency=1 "$@" "${files[@]}"
