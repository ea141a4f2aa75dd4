#!/usr/bin/env bash
# Model-visible tokens per tool and tools/list bytes of mcp-gen against FastMCP and
# openapi-mcp-generator, on the same operations; see bench/README.md ("Token economy").
#
#   bench/tokens.sh                    # default documents (Stripe, Twilio, Asana, GitHub, ...)
#   bench/tokens.sh DOC [DOC...]       # these documents instead
#   bench/tokens.sh --json out.json    # options after the documents or before: passed to tokens.py
#
# Environment:
#   MCPGEN        mcp-gen binary                          (default: target/release/mcp-gen)
#   CORPUS        corpus root with index.tsv              (default: /work/corpus)
#   TIMEOUT       seconds per generator and document      (default: 600)
#   MEM_LIMIT_MB  RSS at which a generator is killed      (default: 12288)
#   O200K         o200k_base.tiktoken vocabulary file     (default: the one in the tiktoken-rs crate
#                 under $CARGO_HOME/registry/src)
#   NO_INSTALL=1  never install; a missing peer fails the run
# Exit status: 0 every target met, 1 a target missed or could not be judged, 2 setup error.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
MCPGEN="${MCPGEN:-$ROOT/target/release/mcp-gen}"
CORPUS="${CORPUS:-/work/corpus}"
TIMEOUT="${TIMEOUT:-600}"
MEM_LIMIT_MB="${MEM_LIMIT_MB:-12288}"

log() { printf '%s\n' "$*" >&2; }

source "$BENCH/install.sh"
if [[ "${NO_INSTALL:-0}" != 1 ]]; then
  install_fastmcp
  install_tiktoken
  install_omg
fi

[[ -x "$MCPGEN" ]] || { log "mcp-gen not found at $MCPGEN (build it, or set MCPGEN)"; exit 2; }
command -v node >/dev/null || { log "node not found"; exit 2; }
PY="$BENCH/.venv/bin/python"
OMG="$BENCH/.npm/node_modules/.bin/openapi-mcp-generator"
[[ -x "$PY" && -x "$OMG" ]] || { log "peers not installed (run without NO_INSTALL=1)"; exit 2; }

if [[ -z "${O200K:-}" ]]; then
  O200K=$(ls -1 "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken 2>/dev/null | sort -V | tail -n1 || true)
fi
[[ -n "$O200K" && -f "$O200K" ]] || {
  log "no o200k_base.tiktoken: set O200K, or fetch the tiktoken-rs crate (cargo fetch in the repo)"; exit 2; }

log "mcp-gen: $MCPGEN ($("$MCPGEN" --version 2>/dev/null || echo '?'))"
log "o200k_base: $O200K"
exec "$PY" "$BENCH/tokens.py" --mcpgen "$MCPGEN" --omg "$OMG" --o200k "$O200K" \
  --corpus "$CORPUS" --timeout "$TIMEOUT" --mem-limit "$MEM_LIMIT_MB" "$@"
