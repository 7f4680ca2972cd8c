#!/usr/bin/env bash
# Makes sure a Docker engine answers on its local socket. Quiet when all is well.
# As root on Debian with no engine: installs docker.io and starts dockerd in the background
# (log: /var/log/analyst-dockerd.log). Otherwise it says exactly what to do and fails.
set -euo pipefail

socket="/var/run/docker.sock"
for var in PYTHON_SANDBOX_DOCKER_HOST DOCKER_HOST; do
  value="${!var:-}"
  if [ -n "$value" ]; then
    case "$value" in
      unix://*) socket="${value#unix://}" ;;
      /*) socket="$value" ;;
      *) echo "ensure-docker: $var=$value is not a local unix socket; Analyst only uses a local engine" >&2; exit 1 ;;
    esac
    break
  fi
done

ping_engine() {
  node -e '
    const req = require("http").get({ socketPath: process.argv[1], path: "/_ping", timeout: 3000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1));
    req.on("error", () => process.exit(1));
    req.on("timeout", () => { req.destroy(); process.exit(1); });
  ' "$socket" 2>/dev/null
}

ping_engine && exit 0

if [ "$(id -u)" -ne 0 ] || [ ! -f /etc/debian_version ]; then
  cat >&2 <<MSG
ensure-docker: no Docker engine answers at $socket.
  Start one (e.g. 'sudo systemctl start docker', or Docker Desktop / Colima / Podman),
  or point PYTHON_SANDBOX_DOCKER_HOST at a local engine socket (unix:///path/to/docker.sock).
  As root on Debian this script installs and starts docker.io by itself.
MSG
  exit 1
fi

if [ "$socket" != "/var/run/docker.sock" ]; then
  echo "ensure-docker: no engine at $socket (set by the environment); not starting one elsewhere" >&2
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "ensure-docker: installing docker.io (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io >/dev/null
fi

if command -v systemctl >/dev/null 2>&1 && systemctl start docker >/dev/null 2>&1; then
  :
else
  echo "ensure-docker: starting dockerd (log: /var/log/analyst-dockerd.log)" >&2
  nohup dockerd >/var/log/analyst-dockerd.log 2>&1 &
fi

for _ in $(seq 1 60); do
  ping_engine && exit 0
  sleep 1
done
echo "ensure-docker: dockerd did not answer within 60 s; see /var/log/analyst-dockerd.log" >&2
exit 1
