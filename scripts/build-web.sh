#!/usr/bin/env bash
# Builds the web UI (web/dist) when it is missing or stale: the build is tagged with a hash
# of web/'s sources, its lock file and the shared step view it imports, and redone only when
# that hash changes (like the sandbox image's recipe hash). Quiet when up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

hash=$(find web/src web/index.html web/public web/vite.config.ts web/tsconfig.json web/package.json \
  web/package-lock.json src/agent/view src/agent/events.ts src/agent/transcript/tags.ts src/sandbox/sandbox.ts \
  src/sandbox/exec-result-schema.ts src/contract src/client \
  -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
if [ -f web/dist/.build-hash ] && [ "$(cat web/dist/.build-hash)" = "$hash" ] && [ -f web/dist/index.html ]; then
  exit 0
fi
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  echo "setup: installing the web UI's npm packages" >&2
  (cd web && npm ci --no-audit --no-fund >&2)
fi
echo "setup: building the web UI" >&2
(cd web && npx vite build --logLevel warn >&2)
echo "$hash" > web/dist/.build-hash
