#!/usr/bin/env bash
# The main job: serve Analyst on http://127.0.0.1:8200 with embedded defaults — SQLite and
# files under ./data, the local Docker sandbox, and the offline analyst when no model is
# configured (set ANALYST_MODEL_URL and ANALYST_MODEL for DeepAnalyze-8B on vLLM or any
# OpenAI-compatible model). Extra arguments go to `analyst serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node bin/analyst.js serve "$@"
