#!/usr/bin/env bash
# Everything the app and the tests need, installed only when missing: npm packages,
# a Docker engine (scripts/ensure-docker.sh) and the sandbox image (rebuilt only when its
# recipe changes). Safe to run again; quiet when all is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages" >&2
  npm ci --no-audit --no-fund >&2
fi

bash scripts/ensure-docker.sh

# Tools the tests and reports use from Debian: Chromium for PDF reports and browser tests,
# CJK fonts so Chinese renders in them, nbformat to validate notebooks with the official schema,
# ipykernel, jupyter_client and nbconvert for the Jupyter kernel (`analyst jupyter install`).
missing=()
for package in chromium fonts-noto-cjk python3-nbformat python3-ipykernel python3-jupyter-client jupyter-nbconvert; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ]; then
    echo "setup: installing ${missing[*]} (Debian packages)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: optional packages missing: ${missing[*]} (PDF reports and some tests need them)" >&2
  fi
fi

image="${PYTHON_SANDBOX_IMAGE:-analyst-sandbox:latest}"
if [ "$image" = "analyst-sandbox:latest" ]; then
  node bin/analyst.js sandbox build >/dev/null
else
  node bin/analyst.js sandbox doctor >/dev/null || {
    echo "setup: the image $image set in PYTHON_SANDBOX_IMAGE does not run cells; see 'npx analyst sandbox doctor'" >&2
    exit 1
  }
fi
