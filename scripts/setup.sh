#!/usr/bin/env bash
# Everything the app and the tests need, installed only when missing: npm packages,
# the web UI (scripts/build-web.sh, rebuilt only when its sources change), a Docker engine
# (scripts/ensure-docker.sh) and the sandbox image (rebuilt only when its
# recipe changes). Safe to run again; quiet when all is in place.
#   bash scripts/setup.sh          what the app needs
#   bash scripts/setup.sh --tests  and PostgreSQL's server too (the tests start a throwaway one)
set -euo pipefail
for_tests=false
[ "${1:-}" = "--tests" ] && for_tests=true
cd "$(dirname "$0")/.."
# shellcheck source=scripts/progress.sh
source scripts/progress.sh

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "setup: installing npm packages" npm ci --no-audit --no-fund
fi

step "setup: building the web UI when its sources changed" bash scripts/build-web.sh

step "setup: checking the Docker engine (installing and starting it if needed)" bash scripts/ensure-docker.sh

# Tools the tests and reports use from Debian: Chromium for PDF reports and browser tests,
# CJK fonts so Chinese renders in them, nbformat to validate notebooks with the official schema,
# ipykernel, jupyter_client and nbconvert for the Jupyter kernel (`analyst jupyter install`),
# docker-compose (Compose v1) for the tests of compose.yaml and compose-python.yaml;
# libjemalloc2, the allocator `npm start` serves with (scripts/start.sh says why).
# With --tests: Debian's postgresql, whose initdb and pg_ctl scripts/test-postgres.sh uses, and
# mariadb-server, whose mariadb-install-db and mariadbd scripts/test-mariadb.sh uses.
packages=(chromium fonts-noto-cjk python3-nbformat python3-ipykernel python3-jupyter-client jupyter-nbconvert docker-compose libjemalloc2)
if $for_tests; then packages+=(postgresql mariadb-server); fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ]; then
    export DEBIAN_FRONTEND=noninteractive
    step "setup: updating the Debian package lists" apt-get update -qq
    step "setup: installing ${missing[*]} (Debian packages)" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup: optional packages missing: ${missing[*]} (PDF reports and some tests need them; the PostgreSQL runs of the tests are skipped without postgresql)" >&2
  fi
fi

image="${PYTHON_SANDBOX_IMAGE:-analyst-sandbox:latest}"
if [ "$image" = "analyst-sandbox:latest" ]; then
  step "setup: the sandbox image (built from Debian packages the first time, about 4 minutes)" \
    node bin/analyst.js sandbox build
else
  node bin/analyst.js sandbox doctor >/dev/null || {
    echo "setup: the image $image set in PYTHON_SANDBOX_IMAGE does not run cells; see 'npx analyst sandbox doctor'" >&2
    exit 1
  }
fi
