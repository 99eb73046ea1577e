#!/usr/bin/env bash
# Prints hew's start-up figures: `hew --version`, `hew -p --mock "hi"` and a
# two-step task against `hew mock-server` (median wall time, peak RSS, time to
# the first model request). Usage: bench/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/hew" ./cmd/hew
go build -o "$tmp/startup" ./bench/startup
"$tmp/startup" -hew "$tmp/hew" -runs "${1:-11}"
if [ -x /usr/bin/time ]; then
  echo "cross-check with /usr/bin/time -v (one run each):"
  for args in "--version" "-p --mock hi"; do
    (cd "$tmp" && HEW_HOME="$tmp/home" /usr/bin/time -v "$tmp/hew" $args >/dev/null 2>"$tmp/time.txt" || true)
    printf '  hew %-14s %s\n' "$args" "$(grep -E 'Maximum resident' "$tmp/time.txt" | sed 's/^[[:space:]]*//')"
  done
fi
