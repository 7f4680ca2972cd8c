# step LABEL COMMAND [ARGS…]: runs a slow setup step. On a terminal a line shows the step, the
# seconds so far and the command's latest output; when it ends, "LABEL: done in N s" (left out
# for steps under 2 s, so a setup with nothing to do stays quiet). On failure: its output.
step() {
  local label="$1"
  shift
  local log
  log="$(mktemp)"
  local start=$SECONDS
  "$@" >"$log" 2>&1 &
  local pid=$!
  if [ -t 2 ]; then
    sleep 1
    while kill -0 "$pid" 2>/dev/null; do
      local last
      last="$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c1-70)"
      printf '\r\033[2K%s… %d s%s' "$label" $((SECONDS - start)) "${last:+  ($last)}" >&2
      sleep 1
    done
    printf '\r\033[2K' >&2
  fi
  local status=0
  wait "$pid" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "$label: failed after $((SECONDS - start)) s; its output:" >&2
    tail -n 40 "$log" >&2
  elif [ $((SECONDS - start)) -ge 2 ]; then
    echo "$label: done in $((SECONDS - start)) s" >&2
  fi
  rm -f "$log"
  return "$status"
}
